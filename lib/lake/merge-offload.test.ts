import fs from 'node:fs';
import * as arrow from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { lakeEncoders, WorkerReadError } from './encoder-pool';
import { openLake, type Lake, type LakeTable } from './index';
import { readParquetBatches } from './parquet';
import { FIELD_ID } from './schema';
import { BRANCH_SCHEMA, branchBatch, branchCanon, branchRows, chdbQuery, icebirdRows, makeWarehouse, scanRows, type BranchRow } from './test-helpers';

// A merge's candidate files on local disk are decoded by an idle encoder worker (offload-read.ts)
// while the merge probes another partition's keys, when a column it reads is not of a fixed-width
// type (here `returnPrevious: ['name']`; fixed-width columns are visited in-thread, parquet-views.ts): the rows a worker reads must be the rows the
// file holds, the merge must come out as the in-thread read makes it, and a file that is missing
// or not Parquet must fail the merge as the in-thread read fails it, leaving the table as it was.

/** The shared pool started and idle (an encode), so the next candidate read goes to its worker. */
async function idleWorker(): Promise<void> {
  const schema = new arrow.Schema([new arrow.Field('x', new arrow.Int32(), false)]);
  const b = new arrow.RecordBatch(schema, arrow.makeData({ type: new arrow.Struct(schema.fields), length: 1, nullCount: 0, children: [arrow.makeData({ type: new arrow.Int32(), length: 1, nullCount: 0, data: new Int32Array([1]) })] }));
  await lakeEncoders().encode(schema, [b], { compression: 'snappy' }, 1000);
  expect(lakeEncoders().idleStarted).toBe(true);
}

async function expectReaders(t: LakeTable, model: Map<string, BranchRow>): Promise<void> {
  const want = [...model.values()].map(branchCanon).sort();
  expect((await scanRows(t)).map(branchCanon).sort()).toEqual(want);
  expect((await icebirdRows(t)).map(branchCanon).sort()).toEqual(want);
  expect((await chdbQuery(t, 'SELECT BRANCH_ID, id, name FROM T')).map(branchCanon).sort()).toEqual(want);
}

const pathOf = (uri: string) => new URL(uri).pathname;

describe('a merge\'s candidate files read by an encoder worker', () => {
  let db: TestDatabase;
  let lake: Lake;
  const wh = makeWarehouse();
  beforeAll(async () => { db = await createTestDatabase(); lake = openLake({ pool: db.pool, warehouse: wh.uri }); });
  afterAll(async () => { await db?.drop(); wh.remove(); });

  test('the worker hands back the file\'s columns as the in-thread reader does; a reader that stops early frees it; a missing file is an open failure', async () => {
    const t = await lake.createTable('o.read', { schema: BRANCH_SCHEMA, partitionBy: ['BRANCH_ID'] });
    await t.append([branchBatch(branchRows(1, 0, 3000))]);
    const [f] = await t.files();
    const local = pathOf(f.path);
    const idOnly = new Set([Number(t.arrowSchema().fields.find((x) => x.name === 'id')!.metadata.get(FIELD_ID))]);
    const here: bigint[] = [];
    for await (const b of readParquetBatches(fs.readFileSync(local), local, { fieldIds: idOnly })) here.push(...(b.getChild('id')!.toArray() as BigInt64Array));
    const pool = lakeEncoders();
    const there: bigint[] = [];
    let columns: string[] = [];
    for await (const b of pool.read(local, [...idOnly], 1000)) { columns = b.schema.fields.map((x) => x.name); there.push(...(b.getChild('id')!.toArray() as BigInt64Array)); }
    expect(columns).toEqual(['id']);
    expect(there).toEqual(here);
    expect(there).toHaveLength(3000);
    // stop after the first batch: the worker finishes the file, then is free for the next read
    for await (const b of pool.read(local, null, 500)) { expect(b.numRows).toBe(500); break; }
    let rows = 0;
    for await (const b of pool.read(local, null, 1000)) rows += b.numRows;
    expect(rows).toBe(3000);
    await expect((async () => { for await (const _ of pool.read(`${local}.gone`, null, 1000)) void _; })()).rejects.toSatisfy((e) => e instanceof WorkerReadError && e.stage === 'open' && e.code === 'ENOENT');
    await expect.poll(() => pool.idleStarted).toBe(true);
  });

  test('updates, inserts and deletes in three partitions come out as every reader reads them, the files read by the worker', async () => {
    const t = await lake.createTable('o.t', { schema: BRANCH_SCHEMA, partitionBy: ['BRANCH_ID'] });
    const model = new Map<string, BranchRow>();
    const put = (rs: BranchRow[]) => rs.forEach((r) => model.set(`${r.BRANCH_ID}|${r.id}`, r));
    for (const b of [1, 2, 3]) { const rs = branchRows(b, 0, 2000); await t.append([branchBatch(rs)]); put(rs); }
    await idleWorker();
    const before = lakeEncoders().readsServed;
    const changes = [...branchRows(1, 10, 20, 'u'), ...branchRows(2, 1990, 2010, 'u'), ...branchRows(3, 500, 501, 'u')];
    const r = await t.merge([branchBatch(changes)], { keys: ['BRANCH_ID', 'id'], deleteKeys: [[2, 5], [3, 1999]], returnPrevious: ['name'] });
    put(changes);
    model.delete('2|5'); model.delete('3|1999');
    expect(lakeEncoders().readsServed).toBeGreaterThan(before);
    expect({ updated: r.updated, inserted: r.inserted, deleted: r.deleted }).toEqual({ updated: 10 + 10 + 1, inserted: 10, deleted: 2 });
    await expectReaders(t, model);
  });

  test('a missing or corrupt candidate file fails the merge as the in-thread read does, and the table is as it was', async () => {
    const t = await lake.createTable('o.bad', { schema: BRANCH_SCHEMA, partitionBy: ['BRANCH_ID'] });
    await t.append([branchBatch(branchRows(1, 0, 1000))]);
    const [f] = await t.files();
    const local = pathOf(f.path);
    const kept = fs.readFileSync(local);
    const snapshot = t.currentSnapshotId();
    // the merge's one candidate file goes to the idle worker: its failure is the merge's
    const tryMerge = async () => {
      await idleWorker();
      const before = lakeEncoders().readsServed;
      const m = t.merge([branchBatch(branchRows(1, 5, 6, 'x'))], { keys: ['BRANCH_ID', 'id'], returnPrevious: ['name'] });
      await m.catch(() => {});
      expect(lakeEncoders().readsServed).toBe(before + 1);
      return m;
    };
    fs.renameSync(local, `${local}.away`);
    await expect(tryMerge()).rejects.toThrow(/table o\.bad: missing data file .*\.parquet/);
    fs.renameSync(`${local}.away`, local);
    fs.writeFileSync(local, Buffer.from('not a parquet file at all, just some bytes'));
    await expect(tryMerge()).rejects.toThrow(/corrupt Parquet file .*\.parquet/);
    fs.writeFileSync(local, kept);
    const reloaded = await lake.loadTable('o.bad');
    expect(reloaded.currentSnapshotId()).toBe(snapshot);
    expect((await scanRows(reloaded)).length).toBe(1000);
  });
});
