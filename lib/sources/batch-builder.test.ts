import { describe, expect, it, test } from 'vitest';
import * as arrow from 'apache-arrow';
import { giveBuffer, heldBytes } from '../cache/array-buffers';
import { ColumnBuilder, constantColumn } from './batch-builder';
import { parsePgArray } from './values';
import type { ColumnType } from './types';

const vec = (d: arrow.Data) => arrow.makeVector(d);

describe('constantColumn', () => {
  test.each<[ColumnType, unknown, (v: unknown) => unknown]>([
    [{ kind: 'string' }, 'b7', (v) => v],
    [{ kind: 'string' }, '', (v) => v],
    [{ kind: 'long' }, 12345678901234n, (v) => v],
    [{ kind: 'int' }, 42, (v) => v],
    [{ kind: 'timestamp' }, 1_700_000_000_000_000n, (v) => v],
    [{ kind: 'double' }, 2.5, (v) => v],
    [{ kind: 'boolean' }, true, (v) => v],
    [{ kind: 'boolean' }, false, (v) => v],
    [{ kind: 'decimal', precision: 18, scale: 2 }, '-12.34', (v) => String(v)],
  ])('%o = %o on every row, same as the row-by-row builder', (type, value, norm) => {
    for (const n of [0, 1, 7, 5000]) {
      const d = constantColumn(type, value, n);
      expect(d.length).toBe(n);
      expect(d.nullCount).toBe(0);
      const ref = new ColumnBuilder(type, Math.max(1, n));
      for (let i = 0; i < n; i++) { ref.prepare(i); ref.set(i, value); }
      const want = vec(ref.finish(n)).toArray();
      const got = vec(d).toArray();
      expect([...got].map(norm)).toEqual([...want].map(norm));
    }
  });

  test('null constant', () => {
    const d = constantColumn({ kind: 'string' }, null, 10);
    expect(d.nullCount).toBe(10);
    expect([...vec(d)]).toEqual(new Array(10).fill(null));
  });
});

describe('ColumnBuilder', () => {
  test('grows past its first allocation and starts afresh after finish', () => {
    const b = new ColumnBuilder({ kind: 'long' }, 20_000);
    for (let i = 0; i < 20_000; i++) { b.prepare(i); if (i % 1000 === 0) b.setNull(i); else b.set(i, BigInt(i)); }
    const d = b.finish(20_000);
    const v = vec(d);
    expect(v.get(0)).toBeNull();
    expect(v.get(19_999)).toBe(19_999n);
    expect(d.nullCount).toBe(20);
    for (let i = 0; i < 3; i++) { b.prepare(i); b.set(i, BigInt(-i)); }
    expect([...vec(b.finish(3))]).toEqual([0n, -1n, -2n]);
    expect(v.get(1)).toBe(1n); // the first batch's buffers are not reused
  });
});

describe('a batch\'s buffers given back by an encoder thread', () => {
  it('are taken by the next batch of that size, zeroed, and hold its rows', () => {
    const rows = 70_001; // 560,008 bytes of int64s, 280,008 of offsets: sizes nothing else here gives back
    const b = new ColumnBuilder({ kind: 'long' }, rows);
    const s = new ColumnBuilder({ kind: 'string' }, rows);
    for (let i = 0; i < rows; i++) { b.prepare(i); b.set(i, BigInt(i)); s.prepare(i); s.set(i, `v${i}`); }
    expect((b.finish(rows).values as BigInt64Array)[rows - 1]).toBe(BigInt(rows - 1));
    s.finish(rows);
    const longs = new ArrayBuffer(rows * 8), offsets = new ArrayBuffer((rows + 1) * 4);
    new Uint8Array(longs).fill(9); new Uint8Array(offsets).fill(9);
    const before = heldBytes();
    giveBuffer(longs); giveBuffer(offsets);
    b.prepare(0); s.prepare(0);
    expect(heldBytes()).toBe(before);
    b.set(0, 5n); b.setNull(1); s.set(0, 'x'); s.setNull(1);
    const d = b.finish(2), t = s.finish(2);
    expect((d.values as BigInt64Array).buffer).toBe(longs);
    expect([...arrow.makeVector(d)]).toEqual([5n, null]);
    expect((t.valueOffsets as Int32Array).buffer).toBe(offsets);
    expect([...arrow.makeVector(t)]).toEqual(['x', null]);
    expect(new Uint8Array(longs, 16).every((x) => x === 0)).toBe(true);
  });
});

describe('list columns from text (PostgreSQL array syntax)', () => {
  it('parses quoting, escapes, NULL elements and nested dimensions', () => {
    expect(parsePgArray('{Trailers,NULL,"a{b}c","x\\"y","NULL",""}')).toEqual(['Trailers', null, 'a{b}c', 'x"y', 'NULL', '']);
    expect(parsePgArray('{}')).toEqual([]);
    expect(parsePgArray('{{1,2},{3,NULL}}')).toEqual(['1', '2', '3', null]);
    expect(parsePgArray('[0:1]={7,8}')).toEqual(['7', '8']);
  });
  it('builds a list column from arrays and from array text', () => {
    const b = new ColumnBuilder({ kind: 'list', element: { kind: 'int' } }, 4);
    b.prepare(0); b.set(0, '{1,NULL,-3}');
    b.prepare(1); b.set(1, null);
    b.prepare(2); b.set(2, [4, [5]]);
    const v = arrow.makeVector(b.finish(3));
    expect([...v].map((x) => (x ? [...(x as arrow.Vector)] : x))).toEqual([[1, null, -3], null, [4, 5]]);
  });
});

describe('a string column whose last batch went to another thread', () => {
  // an encoder thread takes a batch's buffers by transfer: the builder's own view of the bytes is then
  // detached (length 0), and the next batch used to size its bytes by it — ensure() doubled 0 for ever
  // and the worker spun at full CPU (found by a fault test: PostgreSQL killed mid-extract, the retry hung)
  it.each(['string', 'binary'] as const)('%s: the next batches fill, long and short values alike', (kind) => {
    const b = new ColumnBuilder({ kind }, 8);
    const row = (i: number) => Buffer.from(`value ${i} `.repeat(i % 3 === 0 ? 40 : 1));
    for (let batch = 0; batch < 3; batch++) {
      for (let i = 0; i < 8; i++) { b.prepare(i); const v = row(batch * 8 + i); b.setBytes(i, v, 0, v.length); }
      const d = b.finish(8);
      const got = [...vec(d).toArray()].map((x) => Buffer.from(x as Uint8Array | string).toString());
      expect(got).toEqual(Array.from({ length: 8 }, (_, i) => row(batch * 8 + i).toString()));
      // what the encoder pool does with a batch's buffers
      structuredClone(d.values.buffer, { transfer: [d.values.buffer as ArrayBuffer] });
      expect(b.bytes.length).toBe(0);
    }
  }, 5000);
});
