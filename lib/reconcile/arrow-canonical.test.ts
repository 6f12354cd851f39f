import * as arrow from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { cellRenderer, cellWriter, epochSecondsReader } from './arrow-canonical';
import { RowBytes } from './md5';

// A column's Data may be a slice of a larger one (a batch cut to a window or a limit): arrow-js then
// keeps the values and value offsets pre-sliced (row i is values[i]) and only the validity bitmap
// counted from the slice's offset. The canonical text of a row must not depend on how it was cut.
const N = 9;
const us = (i: number) => BigInt(1_700_000_000_000_000 + i * 1_234_567);
const columns: [string, arrow.DataType, arrow.Data][] = [
  ['int32', new arrow.Int32(), arrow.vectorFromArray([1, -2, null, 4, 5, null, 7, 8, 9], new arrow.Int32()).data[0]],
  ['int64', new arrow.Int64(), arrow.vectorFromArray([10n, null, 12n, -13n, 14n, 15n, null, 17n, 2n ** 60n], new arrow.Int64()).data[0]],
  ['float64', new arrow.Float64(), arrow.vectorFromArray([0.5, 1.25, null, -3, 4e10, 5, 6, null, 8.125], new arrow.Float64()).data[0]],
  ['decimal', new arrow.Decimal(2, 12, 128), arrow.makeData({ type: new arrow.Decimal(2, 12, 128), length: N, nullCount: 0, data: Uint32Array.from({ length: 4 * N }, (_, k) => (k % 4 === 0 ? 100 * (k / 4) + 7 : 0)) })],
  ['date', new arrow.DateDay(), arrow.makeData({ type: new arrow.DateDay(), length: N, nullCount: 0, data: Int32Array.from({ length: N }, (_, i) => 19_000 + 37 * i) })],
  ['timestamp', new arrow.TimestampMicrosecond(), arrow.makeData({ type: new arrow.TimestampMicrosecond(), length: N, nullCount: 0, data: BigInt64Array.from({ length: N }, (_, i) => us(i)) })],
  ['utf8', new arrow.Utf8(), arrow.vectorFromArray(['a', 'bé', null, '', 'dddd', 'e', null, 'ggg', 'h'], new arrow.Utf8()).data[0]],
  ['binary', new arrow.Binary(), arrow.vectorFromArray([new Uint8Array([0]), new Uint8Array([1, 255]), null, new Uint8Array([]), new Uint8Array([4]), new Uint8Array([5, 5]), new Uint8Array([6]), null, new Uint8Array([8])], new arrow.Binary()).data[0]],
  ['bool', new arrow.Bool(), arrow.vectorFromArray([true, false, null, true, true, false, null, false, true], new arrow.Bool()).data[0]],
  ['list', new arrow.List(new arrow.Field('item', new arrow.Utf8(), true)), arrow.vectorFromArray([['a'], [], null, ['b', null], ['c', 'd'], ['e'], null, ['f'], ['g', 'h', 'i']], new arrow.List(new arrow.Field('item', new arrow.Utf8(), true))).data[0]],
];

describe('canonical text of a sliced column', () => {
  it.each(columns)('%s: every row of every slice reads as the same row of the whole column', (_name, type, whole) => {
    const render = cellRenderer(type, false);
    const want = Array.from({ length: N }, (_, i) => render(whole, i));
    expect(want.filter((x) => x !== null).length).toBeGreaterThan(4);
    for (let from = 1; from < N; from++) {
      const part = whole.slice(from, N - from);
      expect(Array.from({ length: part.length }, (_, i) => render(part, i)), `slice from row ${from}`).toEqual(want.slice(from));
      const out = new RowBytes();
      const write = cellWriter(type, false);
      for (let i = 0; i < part.length; i++) write(part, i, out);
      const again = new RowBytes();
      for (let i = from; i < N; i++) write(whole, i, again);
      expect(Buffer.from(out.buf.subarray(0, out.pos)).equals(Buffer.from(again.buf.subarray(0, again.pos))), `bytes from row ${from}`).toBe(true);
    }
  });

  it('epoch seconds of a sliced timestamp column', () => {
    const [, type, whole] = columns.find((c) => c[0] === 'timestamp')!;
    const sec = epochSecondsReader(type)!;
    expect(sec(whole.slice(3, 6), 1)).toBe(sec(whole, 4));
  });
});
