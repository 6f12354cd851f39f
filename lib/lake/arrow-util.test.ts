import * as arrow from 'apache-arrow';
import { describe, expect, test } from 'vitest';
import { takeData } from './arrow-util';

// takeData copies fixed-width columns word by word (longs and decimals without a BigInt per row):
// every width must come out as the values at the taken rows, nulls included, from sliced data too.
describe('takeData', () => {
  const idx = [4, 0, 2, 2, 5];
  const cases: [string, arrow.DataType, unknown[]][] = [
    ['int64', new arrow.Int64(), [1n, -2n, 3n, null, 2n ** 40n, -(2n ** 62n), 7n]],
    ['int32', new arrow.Int32(), [1, -2, 3, 4, null, 6, 7]],
    ['int16', new arrow.Int16(), [1, -2, 3, 4, 5, null, 7]],
    ['float64', new arrow.Float64(), [1.5, -2.25, 3, 4, 5.125, 6, null]],
  ];
  for (const [name, type, values] of cases) {
    test(`${name}: the taken rows, whole and from a slice`, () => {
      const d = arrow.vectorFromArray(values, type as never).data[0];
      expect([...arrow.makeVector(takeData(d, idx))]).toEqual(idx.map((i) => values[i]));
      const sliced = d.slice(1, 6);
      expect([...arrow.makeVector(takeData(sliced, [0, 3, 1]))]).toEqual([1, 4, 2].map((i) => values[i]));
    });
  }

  test('timestamp (microseconds): two words a row, from a slice', () => {
    const v = new BigInt64Array([1_700_000_000_000_000n, -2n, 3n, 2n ** 50n, 5n, 6n]);
    const d = arrow.makeData({ type: new arrow.TimestampMicrosecond(), length: 6, nullCount: 0, data: v });
    expect([...(takeData(d, [3, 0, 1]).values as BigInt64Array)]).toEqual([2n ** 50n, 1_700_000_000_000_000n, -2n]);
    expect([...(takeData(d.slice(2, 3), [2, 0]).values as BigInt64Array)]).toEqual([5n, 3n]);
  });

  test('decimal(38,2): four words a row', () => {
    const words = new Uint32Array(4 * 4);
    for (let r = 0; r < 4; r++) for (let w = 0; w < 4; w++) words[r * 4 + w] = r * 100 + w + (w === 3 ? 0x80000000 : 0);
    const d = arrow.makeData({ type: new arrow.Decimal(2, 38, 128), length: 4, nullCount: 0, data: words });
    const out = takeData(d, [3, 1]);
    expect([...(out.values as Uint32Array)]).toEqual([...words.subarray(12, 16), ...words.subarray(4, 8)]);
  });

  // strings taken in runs (i, i+1, …) are copied as one byte range: runs short and long, broken by
  // a repeat or a step back, with nulls and empty values, from a slice too
  test('utf8: runs, repeats and single rows, whole and from a slice', () => {
    const values = Array.from({ length: 40 }, (_, i) => (i % 7 === 3 ? null : i % 5 === 0 ? '' : `v${i}-${'é'.repeat(i % 4)}${'x'.repeat(i)}`));
    const d = arrow.vectorFromArray(values, new arrow.Utf8()).data[0];
    const idx = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 12, 13, 30, 31, 2, 39, 38, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35];
    expect([...arrow.makeVector(takeData(d, idx))]).toEqual(idx.map((i) => values[i]));
    const sliced = d.slice(6, 30);
    const sIdx = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 0, 23, 5, 6];
    expect([...arrow.makeVector(takeData(sliced, sIdx))]).toEqual(sIdx.map((i) => values[i + 6]));
  });
});
