import fs from 'node:fs';
import * as arrow from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { openLake, type Lake, type LakeTable } from './index';
import { readParquetBatches } from './parquet';
import { batchOf, chdbQuery, icebirdRows, makeWarehouse, scanRows } from './test-helpers';

// MergeOptions.knownKeys: a caller that holds a data file's key column (the ETL's key cache for
// `deletes: detect`) lets the merge match without opening the file. The proof that a file was not
// opened is that it is not there during the merge; what the merge then commits must be exactly
// what reading the file would have committed, as every reader reads it back. Anything the held
// keys cannot answer (another length, a null, a kept column that varies in the file) is read.

const SCHEMA = new arrow.Schema([
  new arrow.Field('BRANCH_ID', new arrow.Int32(), false),
  new arrow.Field('id', new arrow.Int64(), false),
  new arrow.Field('name', new arrow.Utf8(), true),
  // one value per append, like the ETL's insert_at: the manifest shows it constant in each file
  new arrow.Field('load', new arrow.Int64(), true),
]);
type Row = { BRANCH_ID: number; id: number; name: string | null; load: number };
const rows = (branch: number, from: number, to: number, load: number, salt = ''): Row[] =>
  Array.from({ length: to - from }, (_, i) => ({ BRANCH_ID: branch, id: from + i, name: `${salt}n${branch}-${from + i}`, load }));
const batch = (rs: Row[]) => batchOf(SCHEMA, rs.map((r) => ({ ...r, id: BigInt(r.id), load: BigInt(r.load) })));
const canon = (r: Record<string, unknown>) => `${Number(r.BRANCH_ID)}|${Number(r.id)}|${r.name ?? null}|${Number(r.load)}`;
const pathOf = (uri: string) => new URL(uri).pathname;

/** A data file's id column as numbers at its row positions (what the ETL's key cache holds). */
async function idsOf(file: string): Promise<Float64Array> {
  const out: number[] = [];
  for await (const b of readParquetBatches(fs.readFileSync(file), file)) for (const v of b.getChild('id')!.toArray() as BigInt64Array) out.push(Number(v));
  return Float64Array.from(out);
}

async function expectReaders(t: LakeTable, model: Map<string, Row>): Promise<void> {
  const want = [...model.values()].map(canon).sort();
  expect((await scanRows(t)).map(canon).sort()).toEqual(want);
  expect((await icebirdRows(t)).map(canon).sort()).toEqual(want);
  expect((await chdbQuery(t, 'SELECT BRANCH_ID, id, name, load FROM T')).map(canon).sort()).toEqual(want);
}

describe('a merge matching on key columns the caller holds', () => {
  let db: TestDatabase;
  let lake: Lake;
  const wh = makeWarehouse();
  beforeAll(async () => { db = await createTestDatabase(); lake = openLake({ pool: db.pool, warehouse: wh.uri }); });
  afterAll(async () => { await db?.drop(); wh.remove(); });

  /** A table of two partitions (one file each), its model, and each file's held keys by path. */
  async function table(name: string) {
    const t = await lake.createTable(name, { schema: SCHEMA, partitionBy: ['BRANCH_ID'] });
    const model = new Map<string, Row>();
    const put = (rs: Row[]) => rs.forEach((r) => model.set(`${r.BRANCH_ID}|${r.id}`, r));
    for (const b of [1, 2]) { const rs = rows(b, 0, 3000, 100 + b); await t.append([batch(rs)]); put(rs); }
    const held = new Map<string, Float64Array>();
    for (const f of await t.files()) held.set(f.path, await idsOf(pathOf(f.path)));
    return { t, model, put, held };
  }

  /** Runs `fn` with the table's data files moved away (a file opened fails the merge), then puts them back. */
  async function withoutFiles<T>(t: LakeTable, fn: () => Promise<T>): Promise<T> {
    const files = (await t.files()).filter((f) => f.content === 'data').map((f) => pathOf(f.path));
    for (const f of files) fs.renameSync(f, `${f}.away`);
    try { return await fn(); } finally { for (const f of files) fs.renameSync(`${f}.away`, f); }
  }

  test('upserts, deletes and a carried constant column are matched from the held keys, no file opened, and read back as reading the files makes them', async () => {
    const { t, model, put, held } = await table('k.t');
    const changes = [...rows(1, 10, 20, 900, 'u'), ...rows(1, 5000, 5005, 900, 'i'), ...rows(2, 2990, 3000, 900, 'u')];
    const r = await withoutFiles(t, () => t.merge([batch(changes)], {
      keys: ['BRANCH_ID', 'id'], carryForward: ['load'], deleteKeys: [[2, 7], [1, 2999]], knownKeys: (p) => held.get(p),
    }));
    expect({ updated: r.updated, inserted: r.inserted, deleted: r.deleted }).toEqual({ updated: 20, inserted: 5, deleted: 2 });
    // an updated row keeps the load it was inserted by (from the manifest, as the file would give it)
    put(changes.map((c) => (c.id < 3000 ? { ...c, load: 100 + c.BRANCH_ID } : c)));
    model.delete('2|7'); model.delete('1|2999');
    await expectReaders(t, model);

    // a second merge: the rows the first one deleted are not matched again (the delete file still applies)
    const again = rows(1, 10, 12, 901, 'v');
    const r2 = await withoutFiles(t, async () => {
      // the first merge's new file is not held: it is read (so it is put back for this merge)
      const fresh = (await t.files()).filter((f) => f.content === 'data' && !held.has(f.path)).map((f) => pathOf(f.path));
      for (const f of fresh) fs.renameSync(`${f}.away`, f);
      try { return await t.merge([batch(again)], { keys: ['BRANCH_ID', 'id'], carryForward: ['load'], knownKeys: (p) => held.get(p) }); } finally { for (const f of fresh) fs.renameSync(f, `${f}.away`); }
    });
    expect({ updated: r2.updated, inserted: r2.inserted }).toEqual({ updated: 2, inserted: 0 });
    put(again.map((c) => ({ ...c, load: 100 + c.BRANCH_ID })));
    await expectReaders(t, model);
  });

  test('held keys that cannot answer are not used: the file is read (and here, being away, fails the merge, which commits nothing)', async () => {
    const { t, held } = await table('k.fallback');
    const snapshot = t.currentSnapshotId();
    const up = batch(rows(1, 10, 12, 900, 'u'));
    const [p1] = [...held.keys()].filter((p) => p.includes('BRANCH_ID=1'));
    const cases: [string, (p: string) => Float64Array | undefined, string[]][] = [
      ['one key short', (p) => held.get(p)!.subarray(1), ['load']],
      ['a null key', (p) => { const k = held.get(p)!.slice(); k[3] = NaN; return k; }, ['load']],
      ['a kept column that varies in the file', (p) => held.get(p), ['name']],
      ['no entry', () => undefined, ['load']],
    ];
    for (const [what, knownKeys, carryForward] of cases) {
      expect(held.get(p1), what).toBeDefined();
      await expect(withoutFiles(t, () => t.merge([up], { keys: ['BRANCH_ID', 'id'], carryForward, knownKeys })), what).rejects.toThrow(/missing data file/);
    }
    expect(t.currentSnapshotId()).toBe(snapshot);
  });
});
