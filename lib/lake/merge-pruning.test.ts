import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { openLake, type Lake, type LakeTable } from './index';
import { BRANCH_SCHEMA, branchBatch, branchCanon, branchRows, chdbQuery, icebirdRows, makeWarehouse, scanRows, type BranchRow } from './test-helpers';

// A merge reads only the data files whose key bounds hold one of its keys, and replaces rows by
// position deletes that every reader applies and compaction folds away. A file the merge must
// not open is moved out of the warehouse while it runs: opening it would fail the merge.

async function expectReaders(t: LakeTable, model: Map<string, BranchRow>): Promise<void> {
  const want = [...model.values()].map(branchCanon).sort();
  expect((await scanRows(t)).map(branchCanon).sort()).toEqual(want);
  expect((await icebirdRows(t)).map(branchCanon).sort()).toEqual(want);
  expect((await chdbQuery(t, 'SELECT BRANCH_ID, id, name FROM T')).map(branchCanon).sort()).toEqual(want);
  const [c] = await chdbQuery(t, 'SELECT count() AS n FROM T');
  expect(Number(c.n)).toBe(want.length);
}

describe('merge opens only the files that may hold an incoming key', () => {
  let db: TestDatabase;
  let lake: Lake;
  const wh = makeWarehouse();
  beforeAll(async () => { db = await createTestDatabase(); lake = openLake({ pool: db.pool, warehouse: wh.uri }); });
  afterAll(async () => { await db?.drop(); wh.remove(); });

  test('keys at both ends of a partition skip the files between; the position deletes read back equal through chdb and icebird, and compact folds them', async () => {
    const t = await lake.createTable('p.t', { schema: BRANCH_SCHEMA, partitionBy: ['BRANCH_ID'] });
    const model = new Map<string, BranchRow>();
    const put = (rs: BranchRow[]) => rs.forEach((r) => model.set(`${r.BRANCH_ID}|${r.id}`, r));
    // four appends: four files per partition, ids 0-999, 1000-1999, 2000-2999, 3000-3999
    for (let k = 0; k < 4; k++) {
      const rs = [...branchRows(1, k * 1000, k * 1000 + 1000), ...branchRows(2, k * 1000, k * 1000 + 1000)];
      await t.append([branchBatch(rs)]);
      put(rs);
    }
    const files = await t.files();
    expect(files.filter((f) => f.partition.BRANCH_ID === 1)).toHaveLength(4);
    // partition 1's middle files lie within the [min, max] of its incoming keys (5 .. 5099) but hold none of them
    const middle = files.filter((f) => f.partition.BRANCH_ID === 1 && f.intBounds!.id.lower >= 1000n && f.intBounds!.id.upper <= 2999n).map((f) => new URL(f.path).pathname);
    expect(middle).toHaveLength(2);
    const changes = [
      { BRANCH_ID: 1, id: 5, name: 'u5' }, { BRANCH_ID: 1, id: 3990, name: 'u3990' }, ...branchRows(1, 5000, 5100, 'new'),
      { BRANCH_ID: 2, id: 2500, name: 'u2500' }, ...branchRows(2, 7000, 7010, 'new'),
    ];
    for (const p of middle) fs.renameSync(p, `${p}.away`);
    let r;
    try {
      // two batches per partition: the road that joins only the key columns
      r = await t.merge([branchBatch(changes.slice(0, 50)), branchBatch(changes.slice(50))], { keys: ['id'], returnPrevious: ['name'] });
    } finally {
      for (const p of middle) fs.renameSync(`${p}.away`, p);
    }
    expect([r.updated, r.inserted]).toEqual([3, 110]);
    // (3990 is a multiple of 7: its name was null)
    expect(r.previous!.map((p) => `${p.id}:${p.name}`).sort()).toEqual(['2500:n2500', '3990:null', '5:n5']);
    put(changes);
    const deletes = (await t.files()).filter((f) => f.content === 'position-deletes');
    expect(deletes.map((f) => f.partition.BRANCH_ID).sort()).toEqual([1, 2]);
    expect(t.metadata()['format-version']).toBe(2);
    expect(t.snapshots().at(-1)!.summary['added-position-deletes']).toBe('3');
    await expectReaders(t, model);

    // a later merge hits a row replaced by the first one's insert files and by its deletes
    const again = [{ BRANCH_ID: 1, id: 5, name: 'u5b' }, { BRANCH_ID: 1, id: 5050, name: 'u5050' }];
    const r2 = await t.merge([branchBatch(again.slice(0, 1)), branchBatch(again.slice(1))], { keys: ['id'] });
    expect([r2.updated, r2.inserted]).toEqual([2, 0]);
    put(again);
    await expectReaders(t, model);

    const c = await t.compact();
    expect(c.snapshotId).not.toBeNull();
    const after = await t.files();
    expect(after.filter((f) => f.content !== 'data')).toEqual([]);
    expect(after.map((f) => f.partition.BRANCH_ID).sort()).toEqual([1, 2]);
    await expectReaders(t, model);
  });

  test("a key repeated across the input's batches: the last row wins, or duplicateKeys: 'error' writes nothing", async () => {
    const t = await lake.createTable('p.d', { schema: BRANCH_SCHEMA, partitionBy: ['BRANCH_ID'] });
    await t.append([branchBatch(branchRows(1, 0, 10))]);
    const snap = t.currentSnapshotId();
    const a = branchBatch([{ BRANCH_ID: 1, id: 3, name: 'first' }]), b = branchBatch([{ BRANCH_ID: 1, id: 3, name: 'second' }, { BRANCH_ID: 1, id: 20, name: 'new' }]);
    await expect(t.merge([a, b], { keys: ['id'], duplicateKeys: 'error' })).rejects.toThrow(/1 incoming row\(s\) share their key/);
    expect(t.currentSnapshotId()).toBe(snap);
    const r = await t.merge([a, b], { keys: ['id'] });
    expect([r.updated, r.inserted]).toEqual([1, 1]);
    const rows = (await icebirdRows(t)).map(branchCanon).sort();
    expect(rows).toContain('1|3|second');
    expect(rows).toContain('1|20|new');
    expect(rows).toHaveLength(11);
  });
});
