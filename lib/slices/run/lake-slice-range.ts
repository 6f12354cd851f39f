/**
 * Per-slice counts in a lake table, by the slice's key range.
 *
 * The lake has no SQL to evaluate a slice predicate with, and the native
 * executor writes no slice marker column (it merges the slice query's own
 * columns on the merge keys). What can be evaluated is a column split's range:
 * `split --strategy column` gives every slice one of the predicates of
 * `columnPredicates` (lib/sources/column-range.ts) —
 *
 *   (s.col < L OR s.col IS NULL)    first slice
 *   s.col >= L AND s.col < H        middle slices
 *   s.col >= L                      last slice
 *   1=1                             a single slice (the whole table)
 *
 * — with Postgres literals (numbers, `'…'::date`, `'…'::timestamp`,
 * `'…'::timestamptz`). Those are parsed here into ranges and each lake row is
 * counted in the range its value falls in. Physical slices (ROWID / ctid) and
 * partitions have no bounds the lake's rows carry: they get no per-slice count
 * (the table total is still compared).
 */

export type LakeValue = number | bigint | string | null;

/** A slice's range on one column; values compare as numbers (dates and timestamps as epoch ms). */
export interface SliceRange {
  column: string;
  /** Inclusive lower bound. (Default: open) */
  lo?: number;
  /** Exclusive upper bound. (Default: open) */
  hi?: number;
  /** NULLs fall in this slice (the first one). */
  nulls: boolean;
}

const COL = String.raw`(?:[A-Za-z_][\w$#]*\.)?("[^"]+"|[A-Za-z_][\w$#]*)`;
const LIT = String.raw`(-?[0-9][0-9.eE+-]*|'[^']*'::(?:numeric|date|timestamp|timestamptz))`;
const FIRST = new RegExp(String.raw`^\(\s*${COL}\s*<\s*${LIT}\s+OR\s+${COL}\s+IS\s+NULL\s*\)$`, 'i');
const MIDDLE = new RegExp(String.raw`^${COL}\s*>=\s*${LIT}\s+AND\s+${COL}\s*<\s*${LIT}$`, 'i');
const LAST = new RegExp(String.raw`^${COL}\s*>=\s*${LIT}$`, 'i');

const bare = (c: string) => (c.startsWith('"') ? c.slice(1, -1) : c.toLowerCase());

/** A Postgres literal as a comparable number, or null when it is none of the split's forms. */
export function literalValue(lit: string): number | null {
  const m = /^'([^']*)'::(numeric|date|timestamp|timestamptz)$/i.exec(lit);
  if (!m) {
    const n = Number(lit);
    return Number.isFinite(n) ? n : null;
  }
  const [, text, cast] = m;
  if (cast.toLowerCase() === 'numeric') return text === 'Infinity' ? Infinity : text === '-Infinity' ? -Infinity : null;
  // Dates and zone-less timestamps are wall-clock values, which the lake keeps as UTC.
  const m2 = /^(\d{4}-\d\d-\d\d)(?:[ T](\d\d:\d\d(?::\d\d(?:\.\d+)?)?))?\s*(Z|[+-]\d\d(?::?\d\d)?)?$/i.exec(text.trim());
  if (!m2) return null;
  const zone = cast.toLowerCase() === 'timestamptz' && m2[3] ? (/^[+-]\d\d$/.test(m2[3]) ? `${m2[3]}:00` : m2[3]) : 'Z';
  const iso = `${m2[1]}T${m2[2] ?? '00:00:00'}${zone}`;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? null : ms;
}

/** The range of a column-split predicate, or null when the predicate is not one (physical, partition, hand-written). */
export function parseSliceRange(predicate: string | null): SliceRange | { column: null } | null {
  const p = predicate?.trim();
  if (!p) return null;
  if (/^1\s*=\s*1$/.test(p)) return { column: null };
  let m = FIRST.exec(p);
  if (m && bare(m[1]) === bare(m[3])) {
    const hi = literalValue(m[2]);
    return hi === null ? null : { column: bare(m[1]), hi, nulls: true };
  }
  m = MIDDLE.exec(p);
  if (m && bare(m[1]) === bare(m[3])) {
    const lo = literalValue(m[2]);
    const hi = literalValue(m[4]);
    return lo === null || hi === null ? null : { column: bare(m[1]), lo, hi, nulls: false };
  }
  m = LAST.exec(p);
  if (m) {
    const lo = literalValue(m[2]);
    return lo === null ? null : { column: bare(m[1]), lo, nulls: false };
  }
  return null;
}

/** Whether a lake value lies in a range (bigints compared exactly against integral bounds). */
export function inRange(v: LakeValue, r: SliceRange): boolean {
  if (v === null || v === undefined) return r.nulls;
  const ge = (x: LakeValue, b: number) => (typeof x === 'bigint' && Number.isInteger(b) ? x >= BigInt(b) : Number(x) >= b);
  if (r.lo !== undefined && !ge(v, r.lo)) return false;
  if (r.hi !== undefined && ge(v, r.hi)) return false;
  return true;
}

/**
 * The per-slice plan of one lake table: the column to read and each slice's
 * range, or why the slices cannot be counted one by one.
 */
export function planLakeSliceCounts(predicates: (string | null)[]): { column: string | null; ranges: (SliceRange | null)[]; note: string | null } {
  const parsed = predicates.map(parseSliceRange);
  if (parsed.length === 1 && parsed[0] && parsed[0].column === null) return { column: null, ranges: [null], note: null };
  if (parsed.some((x) => !x || x.column === null)) {
    return { column: null, ranges: parsed.map(() => null), note: 'lake: no key range known for these slices (physical or partition split): compare totals' };
  }
  const ranges = parsed as SliceRange[];
  const columns = new Set(ranges.map((r) => r.column));
  if (columns.size !== 1) return { column: null, ranges: ranges.map(() => null), note: 'lake: the slices split on different columns: compare totals' };
  return { column: ranges[0].column, ranges, note: null };
}
