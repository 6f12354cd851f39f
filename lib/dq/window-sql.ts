import { formatMicros, type SourceColumn } from '../sources';
import { oraIdent } from '../reconcile/oracle-sql';
import { pgIdent } from '../reconcile/pg-sql';
import type { UnitWindow } from './window';

/** A window column at the source: how to reference it and its source type. */
/** `raw`: reference the name unquoted, as tables.json spells it (a helper column not described by name). */
export interface WindowColumnRef { alias: 't' | 'h'; column: SourceColumn; raw?: string }

function literal(dialect: 'postgres' | 'oracle', col: SourceColumn, v: number, julian: boolean): { ref: (r: string) => string; lit: string } {
  if (julian) return { ref: (r) => r, lit: String(v) };
  const text = formatMicros(BigInt(Math.round(v)));
  const zoned = col.type.kind === 'timestamptz';
  if (dialect === 'postgres') {
    // wall-clock semantics everywhere: a zoned column is compared as its UTC wall clock
    return zoned ? { ref: (r) => `(${r} AT TIME ZONE 'UTC')`, lit: `'${text}'::timestamp` } : { ref: (r) => r, lit: `'${text}'::timestamp` };
  }
  const ts = `TO_TIMESTAMP('${text}', 'YYYY-MM-DD HH24:MI:SS.FF6')`;
  return zoned ? { ref: (r) => `SYS_EXTRACT_UTC(${r})`, lit: ts } : { ref: (r) => r, lit: ts };
}

/**
 * The window as a source predicate over `t` (the table or subquery) and `h`
 * (the helper). Literals are rendered from numbers this module produced, never
 * from user text.
 */
export function windowWhere(dialect: 'postgres' | 'oracle', w: UnitWindow, cols: { window?: WindowColumnRef | null; initial?: WindowColumnRef | null }): string {
  const q = dialect === 'postgres' ? pgIdent : oraIdent;
  const preds: string[] = [];
  const refOf = (c: WindowColumnRef) => `${c.alias}.${c.raw ?? q(c.column.sourceName ?? c.column.name)}`;
  if (w.column && cols.window) {
    const c = cols.window;
    if (w.lower !== null) { const l = literal(dialect, c.column, w.lower, w.julian); preds.push(`${l.ref(refOf(c))} >= ${l.lit}`); }
    if (w.upper !== null) { const l = literal(dialect, c.column, w.upper, w.julian); preds.push(`${l.ref(refOf(c))} ${w.upperExclusive ? '<' : '<='} ${l.lit}`); }
  }
  if (w.initial && cols.initial) {
    const c = cols.initial;
    const l = literal(dialect, c.column, w.initial.value, w.julian);
    preds.push(`${l.ref(refOf(c))} ${w.initial.operator} ${l.lit}`);
  }
  return preds.join(' AND ');
}
