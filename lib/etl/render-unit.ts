import { renderQuery, trackedColumns, type RenderedQuery } from '../sources';
import { oraIdent } from '../reconcile/oracle-sql';
import { pgIdent } from '../reconcile/pg-sql';
import type { EtlSettings } from './settings';
import type { Unit } from './run-types';
import type { TableDef } from '../config/tables-json';

/**
 * The mode a unit reads in: the run's, except for a keyless (query) entry, which has no key to
 * merge changes on and is read whole at every run, as an INITIAL reads it (its INITIAL range
 * applies), then replaces its branches' rows (load-table.ts) — dlt's `replace` disposition.
 */
export function unitMode(def: Pick<TableDef, 'uniqueKey'>, mode: EtlSettings['mode']): EtlSettings['mode'] {
  return def.uniqueKey.length ? mode : 'INITIAL';
}

/** The unit's extraction query in its branch's dialect: the mode's filter, typed by the described CDC / date columns, from its watermark. */
export function renderUnit(u: Pick<Unit, 'def' | 'branch' | 'columns' | 'watermark'>, mode: EtlSettings['mode']): RenderedQuery {
  const tr = trackedColumns(u.def.spec);
  const col = (n: string | null) => (n ? u.columns?.find((c) => c.name === n)?.type ?? null : null);
  const dialect = u.branch.source.dialect === 'oracle' ? 'oracle' : 'postgres';
  const spec = u.def.spec.helper ? u.def.spec : { ...u.def.spec, cdcColumn: asSpelled(u, u.def.spec.cdcColumn, dialect), dateColumn: asSpelled(u, u.def.spec.dateColumn, dialect) };
  const q = renderQuery(spec, dialect, {
    mode: unitMode(u.def, mode), cdcType: col(tr.cdc), dateType: col(tr.date), watermark: u.watermark ?? null,
  });
  return { ...q, table: u.def.source };
}

/**
 * A CDC or date column as the query must spell it: tables.json may write it in any case, and the
 * database folds an unquoted name (PostgreSQL to lower case, Oracle to upper), so a column whose
 * own spelling is not the folded one (`"Updated_At"`) is quoted as the describe found it. A
 * foldable name stays bare (the watermark's index-friendly rewrite reads a bare `t.col`).
 */
function asSpelled(u: Pick<Unit, 'columns'>, name: string | null | undefined, dialect: 'oracle' | 'postgres'): string | null | undefined {
  if (!name) return name;
  const c = u.columns?.find((x) => x.name.toUpperCase() === name.toUpperCase() || x.sourceName === name);
  const own = c ? c.sourceName ?? c.name : null;
  if (!own) return name;
  const folded = dialect === 'postgres' ? own.toLowerCase() : own.toUpperCase();
  return own === folded && /^[A-Za-z_][A-Za-z0-9_$#]*$/.test(own) ? name : (dialect === 'postgres' ? pgIdent : oraIdent)(own);
}
