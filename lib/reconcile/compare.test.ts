import { describe, expect, it } from 'vitest';
import * as arrow from 'apache-arrow';
import { arrowSide } from './arrow-side';
import { compareSides } from './compare';
import type { DqSide } from './side';

function table(rows: { id: number; name: string | null; amt: number }[]) {
  return arrow.tableFromArrays({
    amt: Float64Array.from(rows.map((r) => r.amt)),
    id: Int32Array.from(rows.map((r) => r.id)),
    name: arrow.vectorFromArray(rows.map((r) => r.name), new arrow.Utf8()) as never,
  });
}
function side(t: arrow.Table, digest: 'sum' | 'xor' = 'sum'): DqSide & { passes: number } {
  const s = arrowSide({
    digest,
    scan: async function* () { yield* t.batches; },
    keys: [{ name: 'id', asFloat: false }],
    columns: ['amt', 'id', 'name'].map((name) => ({ name, asFloat: name === 'amt' })),
  });
  const counted = { ...s, passes: 0 };
  counted.digests = (b, w) => { counted.passes++; return s.digests(b, w); };
  counted.rows = (w) => { counted.passes++; return s.rows(w); };
  return counted;
}
const base = Array.from({ length: 20_000 }, (_, i) => ({ id: i, name: i % 7 === 0 ? null : `n${i}`, amt: i / 4 }));
const opts = { columnNames: ['amt', 'id', 'name'], keyNames: ['id'] };

describe('compareSides', () => {
  it('clean: one digest pass per side, everything matched', async () => {
    const a = side(table(base)), b = side(table([...base].reverse()));
    const r = await compareSides(a, b, opts);
    expect(r).toMatchObject({ sourceRows: 20_000, lakeRows: 20_000, matched: 20_000, onlyInSource: 0, onlyInLake: 0, mismatch: 0 });
    expect(a.passes).toBe(1);
    expect(r.stats.buckets).toBe(256);
  });
  it('narrows a deleted, a changed and an extra row to their keys', async () => {
    const lake = base.filter((r) => r.id !== 42).map((r) => (r.id === 777 ? { ...r, name: 'changed' } : r));
    lake.push({ id: 99_999, name: 'extra', amt: 1 });
    const r = await compareSides(side(table(base)), side(table(lake)), { ...opts, maxRowsInMemory: 100 });
    expect(r).toMatchObject({ matched: 19_998, onlyInSource: 1, onlyInLake: 1, mismatch: 1 });
    expect(r.examples.only_in_source).toEqual([{ id: '42' }]);
    expect(r.examples.only_in_lake).toEqual([{ id: '99999' }]);
    expect(r.examples.hash_mismatch).toEqual([{ key: { id: '777' }, columns: ['name'] }]);
    expect(r.keys.mismatch).toEqual([['777']]);
    expect(r.stats.depthBits).toBeGreaterThan(8); // descended before the row pass
    expect(r.stats.rowLevelRows).toBeLessThan(100);
  });
  it('xor digests narrow the same differences', async () => {
    const lake = base.filter((r) => r.id !== 42).map((r) => (r.id === 777 ? { ...r, amt: 1.5 } : r));
    const r = await compareSides(side(table(base), 'xor'), side(table(lake), 'xor'), opts);
    expect(r).toMatchObject({ matched: 19_998, onlyInSource: 1, mismatch: 1 });
    expect(r.examples.hash_mismatch).toEqual([{ key: { id: '777' }, columns: ['amt'] }]);
  });
  it('a NULL changed to empty string is a mismatch', async () => {
    const lake = base.map((r) => (r.id === 7 ? { ...r, name: '' } : r));
    const r = await compareSides(side(table(base)), side(table(lake)), opts);
    expect(r.mismatch).toBe(1);
    expect(r.examples.hash_mismatch[0].columns).toEqual(['name']);
  });
  it('an empty lake: every row only in the source, examples capped, no row pass over everything', async () => {
    const r = await compareSides(side(table(base)), side(table([])), { ...opts, examples: 5, maxKeys: 1000 });
    expect(r.onlyInSource).toBe(20_000);
    expect(r.examples.only_in_source).toHaveLength(5);
    expect(r.keys.complete).toBe(false);
  });
  it('a duplicated lake row counts as only in the lake', async () => {
    const r = await compareSides(side(table(base)), side(table([...base, base[5]])), opts);
    expect(r).toMatchObject({ onlyInLake: 1, mismatch: 0, matched: 20_000 });
  });
});
