import fs from 'node:fs';
import { afterAll, beforeAll, expect, test } from 'vitest';
import * as arrow from 'apache-arrow';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { openLake, type Lake } from './index';
import { batchOf, makeWarehouse } from './test-helpers';

let db: TestDatabase; let lake: Lake;
const wh = makeWarehouse();
beforeAll(async () => { db = await createTestDatabase(); lake = openLake({ pool: db.pool, warehouse: wh.uri }); });
afterAll(async () => { await db?.drop(); wh.remove(); });

const schema = new arrow.Schema([new arrow.Field('id', new arrow.Int64(), false), new arrow.Field('v', new arrow.Utf8(), true)]);

test('an unsupported type names the column', async () => {
  const bad = new arrow.Schema([new arrow.Field('tags', new arrow.List(new arrow.Field('item', new arrow.Utf8())), true)]);
  await expect(lake.createTable('e.bad', { schema: bad })).rejects.toThrow(/column tags/);
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

test('a failed write leaves nothing behind and commits nothing', async () => {
  const t = await lake.createTable('e.f', { schema });
  const before = t.metadataLocation();
  async function* rows() {
    yield batchOf(schema, [{ id: 1n, v: 'a' }]);
    yield batchOf(new arrow.Schema([new arrow.Field('id', new arrow.Int64(), true)]), [{ id: null }]);
  }
  await expect(t.append(rows())).rejects.toThrow(/required column id/);
  await t.refresh();
  expect(t.metadataLocation()).toBe(before);
  const data = `${new URL(t.location).pathname}/data`;
  expect(fs.existsSync(data) ? fs.readdirSync(data, { recursive: true }).filter((p) => String(p).endsWith('.parquet')) : []).toEqual([]);
});
