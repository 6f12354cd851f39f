import * as arrow from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { keyProbe } from './key-probe';
import { rowKey } from './scan';

/** A deterministic pseudo-random sequence (no flaky seeds). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return s / 4294967296; };
}

/** What the probe must agree with: a Map on the string row key, last row winning. */
function naive(incoming: arrow.Data[], rows: number): Map<string, number> {
  const m = new Map<string, number>();
  for (let i = 0; i < rows; i++) m.set(rowKey(incoming, i), i);
  return m;
}

function check(incoming: arrow.Data[], table: arrow.Data[], types: string[]) {
  const inRows = incoming[0].length, tRows = table[0].length;
  const probe = keyProbe(incoming, types, inRows);
  const want = naive(incoming, inRows);
  expect(probe.size).toBe(want.size);
  const pairs = new Int32Array(2 * tRows);
  const n = probe.scan(table, tRows, pairs);
  const got = new Map<number, number>();
  for (let p = 0; p < n; p++) got.set(pairs[2 * p], pairs[2 * p + 1]);
  const find = probe.bind(table);
  let hits = 0;
  for (let i = 0; i < tRows; i++) {
    const w = want.get(rowKey(table, i)) ?? -1;
    // null keys compare equal to null keys only, as rowKey spells them (\u0000)
    expect(got.get(i) ?? -1).toBe(w);
    expect(find(i)).toBe(w);
    if (w >= 0) hits++;
  }
  expect(n).toBe(hits);
  return hits;
}

describe('keyProbe', () => {
  it('64-bit keys: negatives, values beyond 2^53 that differ only in low bits, duplicates (last row wins), null table keys', () => {
    const r = rng(7);
    const big = 2n ** 60n;
    const incoming: bigint[] = [];
    for (let i = 0; i < 3000; i++) incoming.push(BigInt(Math.floor(r() * 1e6)) - 500_000n);
    for (let i = 0; i < 50; i++) incoming.push(big + BigInt(i)); // 2^60 + i: equal as doubles, distinct as int64
    incoming.push(incoming[10], incoming[20]); // repeated keys
    const table: (bigint | null)[] = [];
    for (let i = 0; i < 20_000; i++) table.push(BigInt(Math.floor(r() * 1e6)) - 500_000n);
    for (let i = 0; i < 100; i++) table.push(big + BigInt(i * 2));
    for (let i = 0; i < 10; i++) table.push(null);
    const inc = arrow.vectorFromArray(incoming, new arrow.Int64()).data[0];
    const tbl = arrow.vectorFromArray(table, new arrow.Int64()).data[0];
    const hits = check([inc], [tbl], ['long']);
    expect(hits).toBeGreaterThan(50); // the case really exercises matches (both small and 2^60-range keys)
  });

  it('32-bit keys (int, date) and timestamps', () => {
    const r = rng(11);
    const ints = Array.from({ length: 2000 }, () => Math.floor(r() * 50_000) - 25_000);
    const tints = Array.from({ length: 30_000 }, () => Math.floor(r() * 50_000) - 25_000);
    expect(check([arrow.vectorFromArray(ints, new arrow.Int32()).data[0]], [arrow.vectorFromArray(tints, new arrow.Int32()).data[0]], ['int'])).toBeGreaterThan(0);
    const ts = new arrow.TimestampMicrosecond();
    const tsData = (xs: number[]) => arrow.makeData({ type: ts, length: xs.length, data: BigInt64Array.from(xs, (x) => BigInt(x) * 1_000_003n) });
    expect(check([tsData(ints)], [tsData(tints)], ['timestamp'])).toBeGreaterThan(0);
  });

  it('composite and string keys, and incoming null keys, go through the row-key map', () => {
    const r = rng(3);
    const a = Array.from({ length: 500 }, (_, i) => (i % 50 === 0 ? null : `k${Math.floor(r() * 300)}`));
    const b = Array.from({ length: 500 }, () => Math.floor(r() * 3));
    const ta = Array.from({ length: 5000 }, (_, i) => (i % 70 === 0 ? null : `k${Math.floor(r() * 300)}`));
    const tb = Array.from({ length: 5000 }, () => Math.floor(r() * 3));
    const s = (x: (string | null)[]) => arrow.vectorFromArray(x, new arrow.Utf8()).data[0];
    const n = (x: number[]) => arrow.vectorFromArray(x, new arrow.Int32()).data[0];
    expect(check([s(a), n(b)], [s(ta), n(tb)], ['string', 'int'])).toBeGreaterThan(0);
    const withNull = arrow.vectorFromArray([1n, null, 3n], new arrow.Int64()).data[0];
    expect(check([withNull], [arrow.vectorFromArray([3n, 1n, null, 2n], new arrow.Int64()).data[0]], ['long'])).toBe(3);
  });
});
