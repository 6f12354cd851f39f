import { describe, expect, it } from 'vitest';
import { columnPredicates } from '../../sources';
import { inRange, literalValue, parseSliceRange, planLakeSliceCounts, type SliceRange } from './lake-slice-range';

describe('lake slice ranges', () => {
  it('parses every predicate a column split writes, and nothing else', () => {
    const preds = columnPredicates('s.id', ['10', '20']).map((p) => p.predicate);
    expect(preds.map(parseSliceRange)).toEqual([
      { column: 'id', hi: 10, nulls: true },
      { column: 'id', lo: 10, hi: 20, nulls: false },
      { column: 'id', lo: 20, nulls: false },
    ]);
    expect(parseSliceRange('1=1')).toEqual({ column: null });
    expect(parseSliceRange("s.ctid >= '(0,0)'::tid AND s.ctid < '(10,0)'::tid")).toBeNull();
    expect(parseSliceRange("s.ROWID BETWEEN 'AAA' AND 'BBB'")).toBeNull();
    expect(parseSliceRange('s.id >= 1 AND s.other < 5')).toBeNull();
    expect(parseSliceRange(null)).toBeNull();
  });

  it('reads the Postgres literals of dates and timestamps as epoch milliseconds', () => {
    expect(literalValue("'2024-01-02'::date")).toBe(Date.UTC(2024, 0, 2));
    expect(literalValue("'2024-01-02 03:04:05'::timestamp")).toBe(Date.UTC(2024, 0, 2, 3, 4, 5));
    expect(literalValue("'2024-01-02 03:04:05+02'::timestamptz")).toBe(Date.UTC(2024, 0, 2, 1, 4, 5));
    expect(literalValue("'Infinity'::numeric")).toBe(Infinity);
    expect(literalValue('-1.5e3')).toBe(-1500);
    expect(literalValue("'x'::text")).toBeNull();
  });

  it('puts a value in exactly one of the ranges, NULL in the first', () => {
    const ranges = columnPredicates('id', ['10', '20']).map((p) => parseSliceRange(p.predicate) as SliceRange);
    const where = (v: number | bigint | null) => ranges.flatMap((r, i) => (inRange(v, r) ? [i] : []));
    expect([where(-5), where(9), where(10), where(19n), where(20n), where(10n ** 15n), where(null)]).toEqual([[0], [0], [1], [1], [2], [2], [0]]);
  });

  it('plans per-slice counts only for one-column ranges or a single whole-table slice', () => {
    expect(planLakeSliceCounts(columnPredicates('s.id', ['5']).map((p) => p.predicate))).toMatchObject({ column: 'id', note: null });
    expect(planLakeSliceCounts(['1=1'])).toEqual({ column: null, ranges: [null], note: null });
    expect(planLakeSliceCounts(['1=1', '1=1']).note).toMatch(/physical or partition/);
    expect(planLakeSliceCounts(['s.a >= 1', '(s.b < 1 OR s.b IS NULL)']).note).toMatch(/different columns/);
  });
});
