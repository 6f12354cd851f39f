import { typeToString } from './arrow-types';
import type { ColumnType } from './types';
import { AppError } from '../errors';

/**
 * Cross-branch schema union along an explicit widening lattice:
 *   int → long → decimal(38,0) (integers join decimals as decimal(10,0) / decimal(19,0));
 *   decimal(p,s) ∪ decimal(p',s') → decimal(max(p-s, p'-s') + max(s,s'), max(s,s')), over 38 an error;
 *   float → double; integers/decimals ∪ float/double → double;
 *   date → timestamp → timestamptz;
 *   list<a> ∪ list<b> → list<widen(a, b)> (PostgreSQL arrays; a list and a scalar → string);
 *   anything else with no common widening (a number in one branch, text in another) → string, reported as drift.
 * Columns missing in a branch become nullable (every data column is nullable).
 */
export interface UnionColumn {
  name: string;
  type: ColumnType;
  /** An unconstrained numeric's digits as profiled from this load's rows (`type` was inferred from them): see unionProfiled. */
  need?: NumericNeed;
}

/** The integer and fraction digits an unconstrained numeric's rows need (profileNumeric). */
export interface NumericNeed { intDigits: number; scale: number }

export interface Drift {
  column: string;
  /** What happened: widened, to_string, missing. */
  kind: 'widened' | 'to_string' | 'missing';
  /** Type per branch (or `lake` for the existing table). */
  types?: Record<string, string>;
  resolved?: string;
  /** Branches lacking the column. */
  missingIn?: string[];
}

/** Branch schemas with no common type short of a rewrite the rules forbid: a validation error (exit 2). */
export class SchemaUnionError extends AppError {
  constructor(message: string) { super('validation', message); this.name = 'SchemaUnionError'; }
}

const INT_DIGITS: Record<string, number> = { int: 10, long: 19 };

/** The widest common type of two, or null when there is none short of string. */
export function widen(a: ColumnType, b: ColumnType, column = '?'): ColumnType | null {
  if (typeToString(a) === typeToString(b)) return a;
  if (a.kind === 'list' || b.kind === 'list') {
    // lists widen by their elements (int[] ∪ bigint[] → list<long>); a list and a scalar have no common type
    if (a.kind !== 'list' || b.kind !== 'list') return null;
    const e = widen(a.element, b.element, column);
    return e && e.kind !== 'list' ? { kind: 'list', element: e } : null;
  }
  const k = (t: ColumnType) => t.kind;
  const integral = (t: ColumnType) => t.kind === 'int' || t.kind === 'long';
  const floating = (t: ColumnType) => t.kind === 'float' || t.kind === 'double';
  if (integral(a) && integral(b)) return { kind: 'long' };
  if (floating(a) && floating(b)) return { kind: 'double' };
  if ((floating(a) && (integral(b) || k(b) === 'decimal')) || (floating(b) && (integral(a) || k(a) === 'decimal'))) return { kind: 'double' };
  if ((integral(a) || k(a) === 'decimal') && (integral(b) || k(b) === 'decimal')) {
    const asDec = (t: ColumnType) => (t.kind === 'decimal' ? t : { kind: 'decimal' as const, precision: INT_DIGITS[t.kind], scale: 0 });
    const x = asDec(a); const y = asDec(b);
    const scale = Math.max(x.scale, y.scale);
    const precision = Math.max(x.precision - x.scale, y.precision - y.scale) + scale;
    if (precision > 38) {
      throw new SchemaUnionError(`etl: column ${column}: ${typeToString(a)} ∪ ${typeToString(b)} needs decimal(${precision},${scale}), beyond the maximum precision 38`);
    }
    return { kind: 'decimal', precision, scale };
  }
  const temporal = ['date', 'timestamp', 'timestamptz'];
  if (temporal.includes(a.kind) && temporal.includes(b.kind)) {
    return a.kind === 'timestamptz' || b.kind === 'timestamptz' ? { kind: 'timestamptz' } : { kind: 'timestamp' };
  }
  return null;
}

/**
 * Union of branch schemas, on top of an existing lake schema when there is one
 * (its columns keep their order and are never narrowed). Names match without
 * regard to case and keep their first spelling — the lake's when it has the
 * column — so `film_id` from one branch (or a `naming` convention) lands in
 * an existing `FILM_ID`, never beside it.
 */
export function unionSchemas(branches: Record<string, UnionColumn[]>, base?: UnionColumn[]): { columns: UnionColumn[]; drift: Drift[] } {
  const order: string[] = [];
  const spelling = new Map<string, string>();
  const types = new Map<string, Record<string, ColumnType>>();
  const add = (who: string, c: UnionColumn) => {
    const key = c.name.toLowerCase();
    if (!spelling.has(key)) spelling.set(key, c.name);
    const name = spelling.get(key)!;
    if (!types.has(name)) { types.set(name, {}); order.push(name); }
    types.get(name)![who] = c.type;
  };
  const needs = new Map<string, Record<string, NumericNeed>>();
  for (const c of base ?? []) add('lake', c);
  const names = Object.keys(branches).sort();
  for (const b of names) {
    for (const c of branches[b]) {
      add(b, c);
      if (c.need) { const n = spelling.get(c.name.toLowerCase())!; needs.set(n, { ...needs.get(n), [b]: c.need }); }
    }
  }
  const drift: Drift[] = [];
  const columns: UnionColumn[] = [];
  for (const name of order) {
    const per = types.get(name)!;
    const profiled = needs.get(name) ? unionProfiled(per, needs.get(name)!, name) : null;
    // a profiled branch whose rows the result holds is no drift: its inferred type only reflects this load's rows
    if (profiled) for (const b of Object.keys(needs.get(name)!)) if (holds(profiled, needs.get(name)![b])) per[b] = profiled;
    const entries = Object.entries(per);
    let t: ColumnType | null = profiled ?? entries[0][1];
    let toString = false;
    for (const [, x] of profiled ? [] : entries.slice(1)) {
      const w: ColumnType | null = t ? widen(t, x, name) : null;
      if (!w) { toString = true; t = null; break; }
      t = w;
    }
    const resolved: ColumnType = toString || !t ? { kind: 'string' } : t;
    const distinct = new Set(entries.map(([, x]) => typeToString(x)));
    if (distinct.size > 1) {
      drift.push({ column: name, kind: toString ? 'to_string' : 'widened', types: Object.fromEntries(entries.map(([w, x]) => [w, typeToString(x)])), resolved: typeToString(resolved) });
    }
    const missingIn = names.filter((b) => !per[b]);
    if (missingIn.length && names.length > 0) drift.push({ column: name, kind: 'missing', missingIn });
    columns.push({ name, type: resolved });
  }
  return { columns, drift };
}

const isExactNumber = (t: ColumnType) => t.kind === 'int' || t.kind === 'long' || t.kind === 'decimal';

/** Whether a column of type `t` holds every value of `n` exactly. */
function holds(t: ColumnType, n: NumericNeed): boolean {
  if (t.kind === 'int') return n.scale === 0 && n.intDigits <= 9;
  if (t.kind === 'long') return n.scale === 0 && n.intDigits <= 18;
  return t.kind === 'decimal' && n.scale <= t.scale && n.intDigits <= t.precision - t.scale;
}

/**
 * The union of a column some branch projects as an unconstrained numeric (PostgreSQL `numeric`,
 * Oracle `NUMBER`), whose type each load infers from its own rows. The type widen() gives those
 * inferred types is a claim about digits nobody declared — decimal(38,s) claims 38−s integer
 * digits, long 19 — so unioning them as declared types fails on a mere scale change (decimal(38,2) ∪
 * decimal(38,10) "needs" 46 digits) or on a load with no row at all (long ∪ decimal(38,21)), and a
 * table stops loading. Here the rows' needs decide: the lake's type when it holds them (nothing
 * changes); else decimal(38, the largest scale) — the headroom inferNumeric gives a new column — or
 * long for integers. Declared branches count with their declared digits; the lake's own integer
 * digits are a bound, not a need (the rewrite a scale change takes casts each stored value and fails
 * on one that does not fit). Null when a participant is not an exact number (the general rule).
 */
function unionProfiled(per: Record<string, ColumnType>, needs: Record<string, NumericNeed>, column: string): ColumnType | null {
  if (!Object.values(per).every(isExactNumber)) return null;
  const digits = (t: ColumnType) => (t.kind === 'decimal' ? { intDigits: t.precision - t.scale, scale: t.scale } : { intDigits: INT_DIGITS[t.kind], scale: 0 });
  let scale = 0, intDigits = 0;
  for (const [who, t] of Object.entries(per)) {
    const n = needs[who] ?? digits(t);
    scale = Math.max(scale, n.scale);
    if (who !== 'lake') intDigits = Math.max(intDigits, n.intDigits);
  }
  if (intDigits + scale > 38) {
    throw new SchemaUnionError(`etl: column ${column}: its rows need ${intDigits} integer and ${scale} fraction digits, beyond the maximum precision 38 (declare the column's type at the source, or cast it in a query entry)`);
  }
  const lake = per.lake;
  if (lake && holds(lake, { intDigits, scale })) return lake;
  if (lake?.kind === 'decimal' && lake.scale === scale) {
    // more integer digits at the same scale: a legal promotion (metadata only)
    return { kind: 'decimal', precision: Math.min(38, Math.max(lake.precision, intDigits + scale)), scale };
  }
  return scale === 0 && intDigits <= 18 && (!lake || lake.kind !== 'decimal') ? { kind: 'long' } : { kind: 'decimal', precision: 38, scale };
}

/** Type of an unconstrained numeric inferred from the data's max integer digits and scale. */
export function inferNumeric(p: { intDigits: number; scale: number }): ColumnType {
  if (p.scale === 0) return p.intDigits <= 18 ? { kind: 'long' } : p.intDigits <= 38 ? { kind: 'decimal', precision: 38, scale: 0 } : { kind: 'string' };
  if (p.intDigits + p.scale > 38) return { kind: 'string' };
  return { kind: 'decimal', precision: 38, scale: p.scale };
}
