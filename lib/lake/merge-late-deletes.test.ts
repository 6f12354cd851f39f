import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { openLake, type Lake } from './index';
import { BRANCH_SCHEMA, branchBatch, branchCanon, branchRows, chdbQuery, icebirdRows, makeWarehouse, scanRows } from './test-helpers';

/** Every file under the table's data folder (a failed merge must leave none of its own). */
const dataFiles = (dir: string) => fs.readdirSync(dir, { recursive: true }).map(String).filter((f) => f.endsWith('.parquet')).sort();

// `lateDeleteKeys`: delete keys that arrive while the merge runs (lib/etl starts the load before a
// source's key comparison has finished). The upserts are written first, the deletes join the same
// commit; a key both incoming and deleted keeps its incoming row.
describe('merge with late delete keys', () => {
  let db: TestDatabase;
  let lake: Lake;
  const wh = makeWarehouse();
  beforeAll(async () => { db = await createTestDatabase(); lake = openLake({ pool: db.pool, warehouse: wh.uri }); });
  afterAll(async () => { await db?.drop(); wh.remove(); });

  test('the same commit as deleteKeys: upserts, deletes in two partitions, a partition with deletes only; read back by icebird and chdb', async () => {
    const early = await lake.createTable('l.early', { schema: BRANCH_SCHEMA, partitionBy: ['BRANCH_ID'] });
    const late = await lake.createTable('l.late', { schema: BRANCH_SCHEMA, partitionBy: ['BRANCH_ID'] });
    for (const t of [early, late]) await t.append([branchBatch([...branchRows(0, 1, 50), ...branchRows(1, 1, 50), ...branchRows(2, 1, 10)])]);
    const upserts = () => [branchBatch([{ BRANCH_ID: 0, id: 3, name: 'changed' }, { BRANCH_ID: 0, id: 60, name: 'new' }, { BRANCH_ID: 1, id: 7, name: 'changed' }])];
    const dels = [[5n, 0], [40n, 0], [8n, 1], [2n, 2], [999n, 2]];
    const a = await early.merge(upserts(), { keys: ['id', 'BRANCH_ID'], deleteKeys: dels });
    let resolve!: (k: unknown[][]) => void;
    const pending = new Promise<{ keys: unknown[][] }>((r) => { resolve = (keys) => r({ keys }); });
    const merging = late.merge(upserts(), { keys: ['id', 'BRANCH_ID'], lateDeleteKeys: pending });
    await new Promise((r) => setTimeout(r, 50));
    resolve(dels);
    const b = await merging;
    expect([b.inserted, b.updated, b.deleted]).toEqual([a.inserted, a.updated, a.deleted]);
    expect([b.inserted, b.updated, b.deleted]).toEqual([1, 2, 4]);
    expect(b.deletedByPartition!.map((p) => `${p.partition.BRANCH_ID}:${p.rows}`).sort()).toEqual(['0:2', '1:1', '2:1']);
    const want = (await icebirdRows(early)).map(branchCanon).sort();
    expect(want).not.toContain('0|5|n5');
    expect(want).toContain('0|3|changed');
    expect((await icebirdRows(late)).map(branchCanon).sort()).toEqual(want);
    expect((await chdbQuery(late, 'SELECT BRANCH_ID, id, name FROM T')).map(branchCanon).sort()).toEqual(want);
    expect(late.snapshots().length).toBe(2); // one commit for the upserts and the deletes
  });

  test('a key both incoming and deleted keeps its incoming row; no key at all commits the upserts alone', async () => {
    const t = await lake.createTable('l.both', { schema: BRANCH_SCHEMA, partitionBy: ['BRANCH_ID'] });
    await t.append([branchBatch(branchRows(0, 1, 6))]);
    const r = await t.merge([branchBatch([{ BRANCH_ID: 0, id: 2, name: 'again' }])], { keys: ['id', 'BRANCH_ID'], lateDeleteKeys: Promise.resolve({ keys: [[2n, 0], [4n, 0]] }) });
    expect([r.inserted, r.updated, r.deleted]).toEqual([0, 1, 1]);
    expect((await scanRows(t)).map(branchCanon).sort()).toEqual(['0|1|n1', '0|2|again', '0|3|n3', '0|5|n5']);
    const r2 = await t.merge([branchBatch([{ BRANCH_ID: 0, id: 9, name: 'nine' }])], { keys: ['id', 'BRANCH_ID'], lateDeleteKeys: Promise.resolve({ keys: [] }) });
    expect([r2.inserted, r2.deleted]).toEqual([1, 0]);
    expect((await icebirdRows(t)).map(branchCanon).sort()).toEqual(['0|1|n1', '0|2|again', '0|3|n3', '0|5|n5', '0|9|nine']);
  });

  test('rows given by position (read at the base snapshot): deleted with no file read, an upserted row skipped; at another snapshot: matched by key', async () => {
    const t = await lake.createTable('l.at', { schema: BRANCH_SCHEMA, partitionBy: ['BRANCH_ID'] });
    await t.append([branchBatch([...branchRows(0, 1, 11), ...branchRows(1, 1, 11)])]);
    const fileOf = async (b: number) => (await t.files()).find((f) => f.content === 'data' && Number(f.partition.BRANCH_ID) === b)!.path;
    const [f0, f1] = [await fileOf(0), await fileOf(1)];
    const snap = String(t.currentSnapshotId());
    // ids 1..10 in file order: id k at position k - 1; key 3 of branch 0 is also incoming. The rows are
    // taken as given, not matched: position 6 (id 7) goes although the key says 6 — no file was read
    const at = { snapshotId: snap, rows: [{ path: f0, pos: 2 }, { path: f0, pos: 6 }, { path: f1, pos: 9 }] };
    const r = await t.merge([branchBatch([{ BRANCH_ID: 0, id: 3, name: 'kept' }])], { keys: ['id', 'BRANCH_ID'], lateDeleteKeys: Promise.resolve({ keys: [[3n, 0], [6n, 0], [10n, 1]], at }) });
    expect([r.inserted, r.updated, r.deleted]).toEqual([0, 1, 2]);
    expect(r.deletedByPartition!.map((p) => `${p.partition.BRANCH_ID}:${p.rows}`).sort()).toEqual(['0:1', '1:1']);
    const rows = (await icebirdRows(t)).map(branchCanon).sort();
    expect(rows).toContain('0|3|kept');
    expect(rows.filter((x) => x.startsWith('0|7|') || x.startsWith('1|10|'))).toEqual([]);
    expect(rows).toContain('0|6|n6');
    expect(rows.length).toBe(18);
    expect((await chdbQuery(t, 'SELECT BRANCH_ID, id, name FROM T')).map(branchCanon).sort()).toEqual(rows);
    // positions read at an older snapshot are not trusted: the keys are matched by reading the files
    const r2 = await t.merge([], { keys: ['id', 'BRANCH_ID'], lateDeleteKeys: Promise.resolve({ keys: [[6n, 0]], at: { snapshotId: snap, rows: [{ path: f0, pos: 0 }] } }) });
    expect(r2.deleted).toBe(1);
    const after = (await scanRows(t)).map(branchCanon);
    expect(after).toContain('0|1|n1');
    expect(after.some((x) => x.startsWith('0|6|'))).toBe(false);
  });

  test('late keys that fail: nothing committed, no file of the merge left; with deleteKeys too: refused', async () => {
    const t = await lake.createTable('l.fail', { schema: BRANCH_SCHEMA, partitionBy: ['BRANCH_ID'] });
    await t.append([branchBatch(branchRows(0, 1, 6))]);
    const snap = t.currentSnapshotId();
    const dir = path.join(wh.dir, 'l', 'fail');
    const before = dataFiles(dir);
    await expect(t.merge([branchBatch([{ BRANCH_ID: 0, id: 7, name: 'x' }])], { keys: ['id', 'BRANCH_ID'], lateDeleteKeys: Promise.reject(new Error('source went away')) }))
      .rejects.toThrow('source went away');
    await t.refresh();
    expect(t.currentSnapshotId()).toBe(snap);
    expect(dataFiles(dir)).toEqual(before);
    await expect(t.merge([branchBatch([{ BRANCH_ID: 0, id: 7, name: 'x' }])], { keys: ['id', 'BRANCH_ID'], deleteKeys: [[1n, 0]], lateDeleteKeys: Promise.resolve({ keys: [] }) }))
      .rejects.toThrow('lake: merge takes deleteKeys or lateDeleteKeys, not both');
    expect((await scanRows(t)).length).toBe(5);
  });
});
