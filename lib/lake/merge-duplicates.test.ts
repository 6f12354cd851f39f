import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { openLake, type Lake } from './index';
import { BRANCH_SCHEMA, branchBatch, branchRows, icebirdRows, makeWarehouse } from './test-helpers';

// A merge's input with two rows of one key: by default the last wins (an upsert stream);
// `duplicateKeys: 'error'` refuses the merge before anything is written (lib/etl's loads).
describe('merge with repeated incoming keys', () => {
  let db: TestDatabase;
  let lake: Lake;
  const wh = makeWarehouse();
  beforeAll(async () => { db = await createTestDatabase(); lake = openLake({ pool: db.pool, warehouse: wh.uri }); });
  afterAll(async () => { await db?.drop(); wh.remove(); });

  test("duplicateKeys: 'error' writes nothing; the default keeps the last row", async () => {
    const t = await lake.createTable('d.t', { schema: BRANCH_SCHEMA, partitionBy: ['BRANCH_ID'] });
    await t.append([branchBatch(branchRows(0, 1, 4))]);
    const snap = t.currentSnapshotId();
    const twice = branchBatch([{ BRANCH_ID: 0, id: 2, name: 'first' }, { BRANCH_ID: 0, id: 2, name: 'second' }, { BRANCH_ID: 0, id: 9, name: 'new' }]);
    await expect(t.merge([twice], { keys: ['id', 'BRANCH_ID'], duplicateKeys: 'error' }))
      .rejects.toThrow('lake: merge into d.t: 1 incoming row(s) share their key (id, BRANCH_ID) with another incoming row; nothing was written');
    await t.refresh();
    expect(t.currentSnapshotId()).toBe(snap);
    expect((await icebirdRows(t)).length).toBe(3);
    const r = await t.merge([twice], { keys: ['id', 'BRANCH_ID'] });
    expect([r.inserted, r.updated]).toEqual([1, 1]);
    expect((await icebirdRows(t)).map((x) => `${x.id}:${x.name}`).sort()).toEqual(['1:n1', '2:second', '3:n3', '9:new']);
  });
});
