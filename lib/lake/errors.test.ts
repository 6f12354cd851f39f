import fs from 'node:fs';
import { afterAll, beforeAll, expect, test } from 'vitest';
import * as arrow from 'apache-arrow';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { openLake, type Lake, type LakeTable } from './index';
import { batchOf, makeWarehouse } from './test-helpers';

let db: TestDatabase; let lake: Lake;
const wh = makeWarehouse();
beforeAll(async () => { db = await createTestDatabase(); lake = openLake({ pool: db.pool, warehouse: wh.uri }); });
afterAll(async () => { await db?.drop(); wh.remove(); });

const schema = new arrow.Schema([new arrow.Field('id', new arrow.Int64(), false), new arrow.Field('v', new arrow.Utf8(), true)]);

test('an unsupported type names the column', async () => {
  // (a list is an Iceberg list now; a struct is not supported)
  const bad = new arrow.Schema([new arrow.Field('addr', new arrow.Struct([new arrow.Field('city', new arrow.Utf8())]), true)]);
  await expect(lake.createTable('e.bad', { schema: bad })).rejects.toThrow(/column addr/);
});

test('corrupt metadata and a missing manifest name the file and the table', async () => {
  const t = await lake.createTable('e.t', { schema });
  await t.append([batchOf(schema, [{ id: 1n, v: 'a' }])]);
  const list = t.snapshots()[0]['manifest-list'];
  const manifest = (await fs.promises.readdir(new URL(`${t.location}/metadata`))).find((n) => /-m\d+\.avro$/.test(n))!;
  fs.rmSync(new URL(`${t.location}/metadata/${manifest}`));
  const t2 = await lake.loadTable('e.t');
  await expect(async () => { for await (const b of t2.scan()) void b; }).rejects.toThrow(new RegExp(`table e\\.t: missing manifest .*${manifest}`));
  fs.writeFileSync(new URL(list), 'not avro');
  const t3 = await lake.loadTable('e.t');
  await expect(async () => { for await (const b of t3.scan()) void b; }).rejects.toThrow(/table e\.t: .*snap-.*\.avro/);
  fs.writeFileSync(new URL(t.metadataLocation()), '{ broken');
  await expect(lake.loadTable('e.t')).rejects.toThrow(/table e\.t: corrupt metadata file .*v2\.metadata\.json/);
});

/** A failed write committed nothing (the metadata is the one before) and left no Parquet file behind. */
async function expectUntouched(t: LakeTable, before: string): Promise<void> {
  await t.refresh();
  expect(t.metadataLocation()).toBe(before);
  const data = `${new URL(t.location).pathname}/data`;
  expect(fs.existsSync(data) ? fs.readdirSync(data, { recursive: true }).filter((p) => String(p).endsWith('.parquet')) : []).toEqual([]);
}

test('a failed write leaves nothing behind and commits nothing', async () => {
  const t = await lake.createTable('e.f', { schema });
  const before = t.metadataLocation();
  async function* rows() {
    yield batchOf(schema, [{ id: 1n, v: 'a' }]);
    yield batchOf(new arrow.Schema([new arrow.Field('id', new arrow.Int64(), true)]), [{ id: null }]);
  }
  await expect(t.append(rows())).rejects.toThrow(/required column id/);
  await expectUntouched(t, before);
});

test('files encoded beside the input (encoder threads): all kept on success, none left when the input fails mid-way', async () => {
  // small target files: each 60k-row batch becomes a file of its own, encoded on an encoder thread
  // while the next batch arrives, so files are in flight when the bad batch comes
  const props = { 'write.target-file-size-bytes': String(64 * 1024) };
  const big = (from: number) => batchOf(schema, Array.from({ length: 60_000 }, (_, i) => ({ id: BigInt(from + i), v: `v${(from + i) % 977}` })));
  const ok = await lake.createTable('e.par', { schema, properties: props });
  const r = await ok.append([0, 1, 2, 3, 4, 5].map((k) => big(k * 60_000)));
  expect(r.addedDataFiles).toBeGreaterThan(2);
  let n = 0, sum = 0n;
  for await (const b of ok.scan()) { n += b.numRows; for (const v of b.getChild('id')!) sum += v as bigint; }
  expect([n, sum]).toEqual([360_000, BigInt(360_000 * 359_999 / 2)]);

  const t = await lake.createTable('e.par_bad', { schema, properties: props });
  const before = t.metadataLocation();
  async function* rows() {
    for (let k = 0; k < 6; k++) yield big(k * 60_000);
    yield batchOf(new arrow.Schema([new arrow.Field('id', new arrow.Int64(), true)]), [{ id: null }]);
  }
  await expect(t.append(rows())).rejects.toThrow(/required column id/);
  await expectUntouched(t, before);
});

test('a close with several partitions buffered (files in flight at once): every row back', async () => {
  const ps = new arrow.Schema([new arrow.Field('p', new arrow.Int32(), false), ...schema.fields]);
  const t = await lake.createTable('e.close', { schema: ps, partitionBy: ['p'] });
  const rows = (k: number) => batchOf(ps, Array.from({ length: 30_000 }, (_, i) => ({ p: (i % 3) + 1, id: BigInt(k * 30_000 + i), v: `v${i % 101}` })));
  const r = await t.append([rows(0), rows(1), rows(2)]);
  expect(r.addedDataFiles).toBe(3);
  const byP = new Map<number, [number, bigint]>();
  for await (const b of t.scan()) {
    const p = b.getChild('p')!, id = b.getChild('id')!;
    for (let i = 0; i < b.numRows; i++) { const e = byP.get(p.get(i)) ?? [0, 0n]; byP.set(p.get(i), [e[0] + 1, e[1] + (id.get(i) as bigint)]); }
  }
  const want = new Map<number, [number, bigint]>();
  for (let n = 0; n < 90_000; n++) { const p = ((n % 30_000) % 3) + 1; const e = want.get(p) ?? [0, 0n]; want.set(p, [e[0] + 1, e[1] + BigInt(n)]); }
  expect(byP).toEqual(want);
});

test('a table name too long for the filesystem is refused before anything is written', async () => {
  const long = 'x'.repeat(300);
  const before = fs.readdirSync(wh.dir);
  await expect(lake.createTable(`longns.${long}`, { schema })).rejects.toMatchObject({ code: 'validation', field: 'table', message: expect.stringMatching(/300 bytes long; at most 255/) });
  await expect(lake.createTable(`${long}.t`, { schema })).rejects.toMatchObject({ code: 'validation', field: 'namespace' });
  await expect(lake.createNamespace(long)).rejects.toMatchObject({ code: 'validation', field: 'namespace' });
  expect(await lake.listNamespaces()).not.toContain('longns');
  expect((await db.pool.query(`select count(*)::int n from iceberg_namespace_properties where namespace in ('longns', $1)`, [long])).rows[0].n).toBe(0);
  expect(fs.readdirSync(wh.dir)).toEqual(before);
  // a name within the limit works
  const t = await lake.createTable(`longns.${'y'.repeat(200)}`, { schema });
  expect(t.ident).toBe(`longns.${'y'.repeat(200)}`);
});

test('user-facing failures are coded: missing → not_found, bad arguments → validation naming the field', async () => {
  await expect(lake.loadTable('e.missing')).rejects.toMatchObject({ code: 'not_found', status: 404 });
  await expect(lake.dropTable('e.missing')).rejects.toMatchObject({ code: 'not_found' });
  await expect(lake.namespaceProperties('nope')).rejects.toMatchObject({ code: 'not_found' });
  await expect(lake.renameTable('e.missing', 'e.other')).rejects.toMatchObject({ code: 'not_found' });
  await expect(lake.loadTable('nodot')).rejects.toMatchObject({ code: 'validation', status: 400 });
  await expect(lake.createTable('e/x.t', { schema })).rejects.toMatchObject({ code: 'validation' });
  await expect(lake.createTable('e.p', { schema, partitionBy: ['nope'] })).rejects.toMatchObject({ code: 'validation', field: 'partitionBy' });
  const t = await lake.createTable('e.codes', { schema });
  await t.append([batchOf(schema, [{ id: 1n, v: 'a' }])]);
  await expect(lake.createTable('e.codes', { schema })).rejects.toMatchObject({ code: 'conflict', status: 409 });
  await expect(t.merge([batchOf(schema, [{ id: 1n, v: 'b' }])], { keys: [] })).rejects.toMatchObject({ code: 'validation', field: 'keys' });
  await expect(t.merge([batchOf(schema, [{ id: 1n, v: 'b' }])], { keys: ['nope'] })).rejects.toMatchObject({ code: 'validation', field: 'keys' });
  await expect(t.deleteWhere({})).rejects.toMatchObject({ code: 'validation' });
  await expect((async () => { for await (const b of t.scan({ columns: ['nope'] })) void b; })()).rejects.toMatchObject({ code: 'validation', field: 'columns' });
  await expect((async () => { for await (const b of t.scan({ snapshotId: 42n })) void b; })()).rejects.toMatchObject({ code: 'not_found' });
  await expect(t.append([batchOf(new arrow.Schema([new arrow.Field('zzz', new arrow.Int32(), true)]), [{ zzz: 1 }])])).rejects.toMatchObject({ code: 'validation', field: 'zzz' });
  await lake.dropTable('e.codes');
  await expect(t.refresh()).rejects.toMatchObject({ code: 'not_found' });
});
