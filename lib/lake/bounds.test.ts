import * as arrow from 'apache-arrow';
import { describe, expect, test } from 'vitest';
import { columnStats } from './bounds';

// 64-bit columns are compared by their 32-bit words (no BigInt per row): signs, the 2^32
// boundary, nulls and sliced data must give the same min and max as comparing the values.
describe('columnStats of 64-bit columns', () => {
  const values = [5n, -(2n ** 40n), 2n ** 32n, 2n ** 32n - 1n, -1n, 0n, 2n ** 62n, -(2n ** 63n) + 1n, 4294967295n];
  const data = (vs: bigint[], nulls?: number[]) => {
    const bm = new Uint8Array(Math.ceil(vs.length / 8)).fill(255);
    for (const i of nulls ?? []) bm[i >> 3] &= ~(1 << (i & 7));
    return arrow.makeData({ type: new arrow.Int64(), length: vs.length, nullCount: nulls?.length ?? 0, nullBitmap: nulls ? bm : undefined, data: new BigInt64Array(vs) });
  };
  const minMax = (vs: bigint[]) => [vs.reduce((a, b) => (b < a ? b : a)), vs.reduce((a, b) => (b > a ? b : a))];

  test('min and max across signs and the 2^32 boundary', () => {
    const st = columnStats(data(values), 'long');
    expect([st.min, st.max]).toEqual(minMax(values));
    const pos = [2n ** 32n - 1n, 2n ** 32n, 1n, 2n ** 33n + 7n, 2n ** 33n];
    const p = columnStats(data(pos), 'timestamp');
    expect([p.min, p.max]).toEqual([1n, 2n ** 33n + 7n]);
  });

  test('null rows are skipped; a slice is read from its own first row', () => {
    const st = columnStats(data(values, [6, 7]), 'long');
    expect([st.min, st.max, st.nullCount]).toEqual([-(2n ** 40n), 2n ** 32n, 2]);
    const sl = columnStats(data(values).slice(2, 3), 'long');
    expect([sl.min, sl.max]).toEqual([-1n, 2n ** 32n]);
  });

  test('strings: byte order, nulls skipped, from a slice', () => {
    const vs = ['b', 'ab', 'abc', '', 'é', 'z', 'a'];
    const d = arrow.vectorFromArray(vs, new arrow.Utf8()).data[0];
    const dec = (x: unknown) => new TextDecoder().decode(x as Uint8Array);
    const st = columnStats(d, 'string');
    expect([dec(st.min), dec(st.max)]).toEqual(['', 'é']);
    const sl = columnStats(d.slice(1, 3), 'string');
    expect([dec(sl.min), dec(sl.max)]).toEqual(['', 'abc']);
    const withNull = columnStats(arrow.vectorFromArray(['m', null, 'c', 'x'], new arrow.Utf8()).data[0], 'string');
    expect([dec(withNull.min), dec(withNull.max), withNull.nullCount]).toEqual(['c', 'x', 1]);
  });
});
