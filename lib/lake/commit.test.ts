import { afterAll, beforeAll, expect, test } from 'vitest';
import * as arrow from 'apache-arrow';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { openLake, type Lake } from './index';
import { batchOf, makeWarehouse, scanRows } from './test-helpers';

// The commit path with two handles on one table, the second always stale: each
// operation's declared requirements fail, and its rebase either retries on the
// winner's metadata or refuses with a conflict.

let db: TestDatabase; let lake: Lake;
const wh = makeWarehouse();
beforeAll(async () => { db = await createTestDatabase(); lake = openLake({ pool: db.pool, warehouse: wh.uri }); });
afterAll(async () => { await db?.drop(); wh.remove(); });

const schema = new arrow.Schema([new arrow.Field('b', new arrow.Int32(), false), new arrow.Field('id', new arrow.Int64(), false), new arrow.Field('v', new arrow.Utf8(), true)]);
const rows = (b: number, from: number, n: number, v = 'x') => batchOf(schema, Array.from({ length: n }, (_, i) => ({ b, id: BigInt(from + i), v })));

test('a stale append is rebuilt on the winner and lands; history stays linear', async () => {
  const a = await lake.createTable('c.app', { schema, partitionBy: ['b'] });
  const b = await lake.loadTable('c.app');
  await a.append([rows(1, 0, 10)]);
  const r = await b.append([rows(1, 100, 10)]);
  expect(r.attempts).toBe(2);
  expect(b.snapshots().map((s) => s['sequence-number'])).toEqual([1, 2]);
  expect(String(b.snapshots()[1]['parent-snapshot-id'])).toBe(String(b.snapshots()[0]['snapshot-id']));
  expect(await scanRows(b)).toHaveLength(20);
  expect(b.metadata()['metadata-log'].map((l) => l['metadata-file'].replace(/.*\//, ''))).toEqual(['v1.metadata.json', 'v2.metadata.json']);
});

test('a stale merge retries when the concurrent commit touched other partitions, and is a conflict when it touched its own', async () => {
  const a = await lake.createTable('c.mrg', { schema, partitionBy: ['b'] });
  await a.append([rows(1, 0, 10), rows(2, 0, 10)]);
  const b = await lake.loadTable('c.mrg');
  await a.merge([rows(2, 0, 2, 'a')], { keys: ['id'] });
  const ok = await b.merge([rows(1, 0, 2, 'b')], { keys: ['id'] });
  expect(ok.attempts).toBe(2);
  expect(ok.updated).toBe(2);

  const c = await lake.loadTable('c.mrg');
  await a.refresh();
  await a.merge([rows(1, 5, 1, 'a2')], { keys: ['id'] });
  const before = (await lake.loadTable('c.mrg')).metadataLocation();
  await expect(c.merge([rows(1, 6, 1, 'c')], { keys: ['id'] })).rejects.toMatchObject({ code: 'conflict', message: expect.stringMatching(/partition 1/) });
  // nothing of the refused merge was committed
  expect((await lake.loadTable('c.mrg')).metadataLocation()).toBe(before);
  const live = await scanRows(await lake.loadTable('c.mrg'));
  expect(live.filter((x) => x.v === 'c')).toEqual([]);
  expect(live).toHaveLength(20);
});

test('a stale schema change is a conflict after another schema change, and retries over a data commit', async () => {
  const a = await lake.createTable('c.evo', { schema });
  const b = await lake.loadTable('c.evo');
  const c = await lake.loadTable('c.evo');
  const d = await lake.loadTable('c.evo');
  await a.append([rows(1, 0, 3)]);
  const r = await b.evolveSchema(new arrow.Schema([...schema.fields, new arrow.Field('n', new arrow.Int32(), true)]));
  expect(r.changes).toEqual(['add column n int']);
  expect(b.snapshots()).toHaveLength(1); // built over a's append, which it kept
  await expect(c.evolveSchema(new arrow.Schema([...schema.fields, new arrow.Field('m', new arrow.Utf8(), true)]))).rejects.toMatchObject({ code: 'conflict' });
  await expect(d.append([rows(1, 10, 1)])).rejects.toMatchObject({ code: 'conflict', message: expect.stringMatching(/schema changed/) });
});
