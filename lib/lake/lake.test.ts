import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as arrow from 'apache-arrow';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { openLake, type Lake, type LakeTable } from './index';
import { batchOf, chdbQuery, icebirdRows, makeWarehouse, scanRows } from './test-helpers';

// The sequence create → append → merge → delete → evolve → compact → expire,
// read back after every step by the lake's own scan, icebird and ClickHouse (chdb).

interface Row { BRANCH_ID: number; id: number; name: string | null; cents: number | null; qty: number | null; created_at: number }

const SCHEMA = new arrow.Schema([
  new arrow.Field('BRANCH_ID', new arrow.Int32(), false),
  new arrow.Field('id', new arrow.Int64(), false),
  new arrow.Field('name', new arrow.Utf8(), true),
  new arrow.Field('amount', new arrow.Decimal(2, 18, 128), true),
  new arrow.Field('qty', new arrow.Int32(), true),
  new arrow.Field('price', new arrow.Float32(), true),
  new arrow.Field('created_at', new arrow.TimestampMicrosecond(), false),
  new arrow.Field('updated_at', new arrow.TimestampMicrosecond('UTC'), true),
  new arrow.Field('day', new arrow.DateDay(), true),
  new arrow.Field('flag', new arrow.Bool(), true),
]);

function dec(cents: number | null): Uint32Array | null {
  if (cents === null) return null;
  const out = new Uint32Array(4); let x = BigInt.asUintN(128, BigInt(cents));
  for (let k = 0; k < 4; k++) { out[k] = Number(x & 0xffffffffn); x >>= 32n; }
  return out;
}

function toBatch(rows: Row[], schema = SCHEMA, extra: (r: Row) => Record<string, unknown> = () => ({})): arrow.RecordBatch {
  return batchOf(schema, rows.map((r) => ({
    BRANCH_ID: r.BRANCH_ID, id: BigInt(r.id), name: r.name, amount: dec(r.cents), qty: r.qty, price: r.qty === null ? null : r.qty / 4,
    created_at: r.created_at, updated_at: r.created_at + 1000, day: new Date(Date.UTC(2024, 0, 1 + (r.id % 300))), flag: r.id % 3 === 0 ? null : r.id % 2 === 0,
    ...extra(r),
  })));
}

const seedRow = (id: number, branch: number, salt = 0): Row => ({
  BRANCH_ID: branch, id, name: id % 17 === 0 ? null : `name-${id}-${salt}`, cents: id % 13 === 0 ? null : (id * 37 + salt) % 100000 - 5000,
  qty: id % 11 === 0 ? null : id % 1000, created_at: Date.UTC(2024, 1, 1) + id * 1000,
});

const canon = (r: Row) => `${r.BRANCH_ID}|${r.id}|${r.name}|${r.cents}|${r.qty}|${r.created_at}`;

function fromScan(r: Record<string, unknown>, scale: number): Row {
  return {
    BRANCH_ID: Number(r.BRANCH_ID), id: Number(r.id), name: (r.name as string) ?? null,
    cents: r.amount === null ? null : Number(BigInt(String(r.amount)) / 10n ** BigInt(scale - 2)),
    qty: r.qty === null ? null : Number(r.qty), created_at: Number(r.created_at),
  };
}

function fromIcebird(r: Record<string, unknown>): Row {
  const ts = r.created_at as unknown;
  return {
    BRANCH_ID: Number(r.BRANCH_ID), id: Number(r.id), name: (r.name as string) ?? null,
    cents: r.amount === null || r.amount === undefined ? null : Math.round(Number(r.amount) * 100),
    qty: r.qty === null || r.qty === undefined ? null : Number(r.qty),
    created_at: ts instanceof Date ? ts.getTime() : typeof ts === 'bigint' ? Number(ts / 1000n) : Number(ts),
  };
}

async function chdbRows(t: LakeTable): Promise<Row[]> {
  const rows = await chdbQuery(t, 'SELECT BRANCH_ID, id, name, toInt64(round(amount * 100)) AS cents, qty, toUnixTimestamp64Milli(created_at) AS created_at FROM T');
  return rows.map((r) => ({
    BRANCH_ID: Number(r.BRANCH_ID), id: Number(r.id), name: (r.name as string) ?? null, cents: r.cents === null ? null : Number(r.cents),
    qty: r.qty === null ? null : Number(r.qty), created_at: Number(r.created_at),
  }));
}

async function expectReaders(t: LakeTable, model: Map<number, Row>, scale = 2): Promise<void> {
  const want = [...model.values()].map(canon).sort();
  const own = (await scanRows(t)).map((r) => canon(fromScan(r, scale))).sort();
  expect(own.length).toBe(want.length);
  expect(own).toEqual(want);
  const ib = (await icebirdRows(t)).map((r) => canon(fromIcebird(r))).sort();
  expect(ib).toEqual(want);
  const ch = (await chdbRows(t)).map(canon).sort();
  expect(ch).toEqual(want);
  // chdb's bare count() trusts the snapshot summary: it must be exact too
  const [c] = await chdbQuery(t, 'SELECT count() AS n FROM T');
  expect(Number(c.n)).toBe(want.length);
}

describe('lake sequence', () => {
  let db: TestDatabase;
  let lake: Lake;
  const wh = makeWarehouse();
  const model = new Map<number, Row>();
  let t: LakeTable;

  beforeAll(async () => {
    db = await createTestDatabase();
    lake = openLake({ pool: db.pool, warehouse: wh.uri });
  });
  afterAll(async () => {
    await db?.drop();
    wh.remove();
  });

  test('create and append', async () => {
    t = await lake.createTable('sales.orders', { schema: SCHEMA, partitionBy: ['BRANCH_ID'] });
    expect(await lake.listTables('sales')).toEqual(['sales.orders']);
    for (const branch of [1, 2, 3]) {
      const rows = Array.from({ length: 3000 }, (_, i) => seedRow(branch * 100_000 + i, branch));
      rows.forEach((r) => model.set(r.id, r));
      const res = await t.append([toBatch(rows.slice(0, 1500)), toBatch(rows.slice(1500))]);
      expect(res.addedRecords).toBe(3000);
    }
    // a mixed-partition batch is split by partition
    const mixed = Array.from({ length: 300 }, (_, i) => seedRow(900_000 + i, 1 + (i % 3)));
    mixed.forEach((r) => model.set(r.id, r));
    await t.append((async function* () { yield toBatch(mixed); })());
    const s = t.snapshots().at(-1)!;
    expect(s.summary.operation).toBe('append');
    expect(s.summary['total-records']).toBe('9300');
    await expectReaders(t, model);
  });

  test('merge: updates and inserts, carry-forward and previous values', async () => {
    const changes: Row[] = [];
    for (let i = 0; i < 150; i++) changes.push({ ...seedRow(200_000 + i * 7, 2, 1), created_at: 1 }); // updates
    for (let i = 0; i < 150; i++) changes.push({ ...seedRow(300_000 + i * 11, 3, 1), created_at: 1 }); // updates
    for (let i = 0; i < 200; i++) changes.push({ ...seedRow(500_000 + i, 2, 1), created_at: Date.UTC(2024, 5, 1) }); // inserts
    const res = await t.merge([toBatch(changes)], { keys: ['id'], carryForward: ['created_at'], returnPrevious: ['name'] });
    expect(res.updated).toBe(300);
    expect(res.inserted).toBe(200);
    expect(res.previous).toHaveLength(300);
    const prev = res.previous!.find((p) => Number(p.id) === 200_007)!;
    expect(prev.name).toBe(model.get(200_007)!.name);
    for (const c of changes) {
      const old = model.get(c.id);
      model.set(c.id, { ...c, created_at: old ? old.created_at : c.created_at });
    }
    const s = t.snapshots().at(-1)!;
    expect(s.summary.operation).toBe('overwrite');
    expect(s.summary['added-position-deletes']).toBe('300');
    // only partitions 2 and 3 were touched: no delete file in partition 1
    const files = await t.files();
    expect(files.filter((f) => f.content === 'position-deletes').map((f) => f.partition.BRANCH_ID).sort()).toEqual([2, 3]);
    await expectReaders(t, model);
  });

  test('merge with a repeated key updates the row just merged', async () => {
    const again = [{ ...seedRow(200_007, 2, 9), created_at: 5 }];
    const res = await t.merge([toBatch(again)], { keys: ['id'], carryForward: ['created_at'] });
    expect(res).toMatchObject({ updated: 1, inserted: 0 });
    model.set(200_007, { ...again[0], created_at: model.get(200_007)!.created_at });
    await expectReaders(t, model);
  });

  test('deleteWhere by keys and by partition', async () => {
    const ids = [100_000, 100_001, 200_007, 500_010, 999_999];
    const res = await t.deleteWhere({ keys: { columns: ['id'], values: ids.map((i) => [i]) } });
    expect(res.deleted).toBe(4);
    ids.forEach((i) => model.delete(i));
    await expectReaders(t, model);
    const before = [...model.values()].filter((r) => r.BRANCH_ID === 3).length;
    const res2 = await t.deleteWhere({ partition: { BRANCH_ID: 3 } });
    expect(res2.deleted).toBe(before);
    for (const [k, r] of model) if (r.BRANCH_ID === 3) model.delete(k);
    expect(t.snapshots().at(-1)!.summary.operation).toBe('delete');
    await expectReaders(t, model);
  });

  test('overwrite one partition', async () => {
    const rows = Array.from({ length: 500 }, (_, i) => seedRow(700_000 + i, 1, 2));
    await t.overwrite([toBatch(rows)], { partition: { BRANCH_ID: 1 } });
    for (const [k, r] of model) if (r.BRANCH_ID === 1) model.delete(k);
    rows.forEach((r) => model.set(r.id, r));
    await expectReaders(t, model);
    await expect(t.overwrite([toBatch([seedRow(1, 2)])], { partition: { BRANCH_ID: 1 } })).rejects.toThrow(/another partition|BRANCH_ID=/);
  });

  test('evolve: add a column and promote int → long (metadata only)', async () => {
    const target = new arrow.Schema([...SCHEMA.fields.filter((f) => f.name !== 'qty'), new arrow.Field('qty', new arrow.Int64(), true), new arrow.Field('note', new arrow.Utf8(), true)]);
    const r = await t.evolveSchema(target);
    expect(r.rewritten).toBe(false);
    expect(r.changes).toEqual(['promote qty int -> long', 'add column note string']);
    expect(t.arrowSchema().fields.find((f) => f.name === 'qty')!.type.toString()).toBe('Int64');
    const rows = [seedRow(800_001, 2, 3)];
    await t.append([toBatch(rows, target, (x) => ({ qty: x.qty === null ? null : BigInt(x.qty), note: 'new' }))]);
    rows.forEach((x) => model.set(x.id, x));
    await expectReaders(t, model);
    const notes = (await scanRows(t, { columns: ['id', 'note'], filter: [{ column: 'id', gte: 800_000, lte: 800_999 }] }));
    expect(notes).toEqual([{ id: 800_001n, note: 'new' }]);
  });

  test('evolve: decimal(18,2) ∪ decimal(18,4) → decimal(20,4) rewrites in one commit', async () => {
    const snaps = t.snapshots().length;
    const target = new arrow.Schema([new arrow.Field('amount', new arrow.Decimal(4, 18, 128), true)]);
    const r = await t.evolveSchema(target);
    expect(r.rewritten).toBe(true);
    expect(r.changes[0]).toMatch(/^rewrite amount decimal\(18, 2\) -> decimal\(20, 4\)/);
    expect(t.snapshots().length).toBe(snaps + 1);
    expect(t.metadata().schemas.at(-1)!.fields.find((f) => f.name === 'amount')!.type).toBe('decimal(20, 4)');
    expect((await t.files()).filter((f) => f.content !== 'data')).toEqual([]);
    await expectReaders(t, model, 4);
  });

  test('compact folds deletes into fresh files (replace)', async () => {
    const changes = [{ ...seedRow(200_010, 2, 4) }];
    await t.merge([toBatch(changes, t.arrowSchema(), (x) => ({ qty: x.qty === null ? null : BigInt(x.qty), amount: x.cents === null ? null : dec(x.cents * 100) }))], { keys: ['id'] });
    model.set(200_010, changes[0]);
    expect((await t.files()).some((f) => f.content === 'position-deletes')).toBe(true);
    const res = await t.compact({ partition: { BRANCH_ID: 2 } });
    expect(res.snapshotId).not.toBeNull();
    expect(t.snapshots().at(-1)!.summary.operation).toBe('replace');
    const files = await t.files();
    expect(files.filter((f) => f.content !== 'data')).toEqual([]);
    expect(files.filter((f) => f.partition.BRANCH_ID === 2)).toHaveLength(1);
    await expectReaders(t, model, 4);
  });

  test('expire deletes exactly the unreferenced files', async () => {
    const dir = new URL(t.location).pathname;
    const list = (): string[] => (fs.readdirSync(dir, { recursive: true }) as string[]).filter((p) => fs.statSync(`${dir}/${p}`).isFile()).map((p) => `file://${dir}/${p}`).sort();
    const before = list();
    // what the current snapshot references
    const live = new Set((await t.files()).map((f) => f.path));
    const res = await t.expireSnapshots({ now: Date.now() + 10 * 24 * 3600 * 1000 });
    expect(res.expiredSnapshots).toBe(t.snapshots().length === 1 ? res.expiredSnapshots : -1);
    const after = list();
    expect(before.filter((p) => !after.includes(p)).sort()).toEqual(res.deletedFiles);
    for (const p of live) expect(after).toContain(p);
    // nothing a kept snapshot needs was deleted, and every deleted data file was unreferenced
    for (const p of res.deletedFiles) expect(live.has(p)).toBe(false);
    expect(res.deletedFiles.some((p) => p.endsWith('.parquet'))).toBe(true);
    await expectReaders(t, model, 4);
  });

  test('catalog: namespaces, rename, drop with purge', async () => {
    await lake.createNamespace('tmp', { owner: 'tests' });
    expect(await lake.namespaceProperties('tmp')).toMatchObject({ owner: 'tests' });
    const u = await lake.createTable('tmp.x', { schema: new arrow.Schema([new arrow.Field('a', new arrow.Int32(), true)]) });
    await u.append([batchOf(u.arrowSchema(), [{ a: 1 }, { a: null }])]);
    await expect(lake.dropNamespace('tmp')).rejects.toThrow(/not empty/);
    await lake.renameTable('tmp.x', 'tmp.y');
    expect(await lake.tableExists('tmp.y')).toBe(true);
    expect(await lake.tableExists('tmp.x')).toBe(false);
    const loc = new URL((await lake.loadTable('tmp.y')).location).pathname;
    await lake.dropTable('tmp.y', { purge: true });
    expect(fs.readdirSync(loc, { recursive: true }).filter((p) => fs.statSync(`${loc}/${p}`).isFile())).toEqual([]);
    await lake.dropNamespace('tmp');
    expect(await lake.listNamespaces()).toEqual(['sales']);
    // the rows in the catalog tables have the SqlCatalog layout
    const r = await db.pool.query(`select catalog_name, table_namespace, table_name, iceberg_type from iceberg_tables`);
    expect(r.rows).toEqual([{ catalog_name: 'tributary', table_namespace: 'sales', table_name: 'orders', iceberg_type: 'TABLE' }]);
  });
});
