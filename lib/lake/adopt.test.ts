import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as arrow from 'apache-arrow';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { openLake, type Lake, type LakeTable } from './index';
import { encodeParquet } from './parquet';
import { batchOf, chdbQuery, icebirdRows, makeWarehouse, scanRows } from './test-helpers';
import { adoptRecords } from './adopt';
import type { TableHandle } from './table-context';

// Adopting already-written Parquet files: statistics from the footer must equal
// those computed from the decoded values; replaceDataFiles swaps the table's
// files atomically and every reader sees exactly the new rows.

const SCHEMA = new arrow.Schema([
  new arrow.Field('id', new arrow.Int64(), true),
  new arrow.Field('n', new arrow.Int32(), true),
  new arrow.Field('amount', new arrow.Decimal(2, 18, 128), true),
  new arrow.Field('score', new arrow.Float64(), true),
  new arrow.Field('note', new arrow.Utf8(), true),
  new arrow.Field('day', new arrow.DateDay(), true),
  new arrow.Field('at', new arrow.TimestampMicrosecond(), true),
  new arrow.Field('flag', new arrow.Bool(), true),
  new arrow.Field('BRANCH_ID', new arrow.Utf8(), true),
]);

function dec(cents: number): Uint32Array {
  const out = new Uint32Array(4); let x = BigInt.asUintN(128, BigInt(cents));
  for (let k = 0; k < 4; k++) { out[k] = Number(x & 0xffffffffn); x >>= 32n; }
  return out;
}

function rows(branch: string, from: number, n: number, salt = ''): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, k) => {
    const i = from + k;
    return {
      id: BigInt(i), n: i % 7 === 0 ? null : (i * 31) % 1000 - 500, amount: i % 5 === 0 ? null : dec((i * 37) % 100000 - 5000), score: i % 9 === 0 ? null : i / 3,
      // long strings: footer statistics of BYTE_ARRAY columns may be truncated by the writer
      note: i % 4 === 0 ? null : `${'z'.repeat(i % 3 === 0 ? 200 : 1)}note-${i}-${salt}`,
      day: new Date(Date.UTC(2024, 0, 1 + (i % 300))), at: Date.UTC(2024, 1, 1) + i * 1000, flag: i % 3 === 0 ? null : i % 2 === 0, BRANCH_ID: branch,
    };
  });
}

let db: TestDatabase;
let lake: Lake;
const wh = makeWarehouse();
const staged = path.join(wh.dir, 'staged');

beforeAll(async () => {
  db = await createTestDatabase();
  lake = openLake({ pool: db.pool, warehouse: wh.uri });
  await lake.createNamespace('ad');
  fs.mkdirSync(staged, { recursive: true });
});
afterAll(async () => { await db?.drop(); wh.remove(); });

let seq = 0;
function stage(t: LakeTable, rs: Record<string, unknown>[], rowGroupRows = 400): string {
  const schema = t.arrowSchema();
  const b = batchOf(new arrow.Schema(schema.fields.map((f) => new arrow.Field(f.name, f.type, true, f.metadata))), rs);
  const file = path.join(staged, `f-${seq++}.parquet`);
  fs.writeFileSync(file, encodeParquet(b.schema, [b], { codec: 'snappy', rowGroupRows }));
  return file;
}

describe('adopting Parquet files', () => {
  test('footer statistics equal the decoded ones (multi row group, nulls, long strings, decimals, floats)', async () => {
    const t = await lake.createTable('ad.stats', { schema: SCHEMA, partitionBy: ['BRANCH_ID'] });
    const file = stage(t, rows('b1', 1, 1500));
    const impl = t as unknown as TableHandle;
    const [fast] = await adoptRecords(impl, [file]);
    const [slow] = await adoptRecords(impl, [file], { footer: false });
    expect(fast).toEqual(slow);
    expect(fast.partition).toEqual({ BRANCH_ID: 'b1' });
    expect(Number(fast.record_count)).toBe(1500);
  });

  test('a file holding two partitions is refused', async () => {
    const t = await lake.loadTable('ad.stats');
    const file = stage(t, [...rows('b1', 1, 10), ...rows('b2', 11, 10)]);
    await expect(t.appendDataFiles([file])).rejects.toThrow(/partitions/);
  });

  test('replaceDataFiles: whole table, then one partition; icebird and ClickHouse agree', async () => {
    const t = await lake.createTable('ad.repl', { schema: SCHEMA, partitionBy: ['BRANCH_ID'] });
    await t.appendDataFiles([stage(t, rows('b1', 1, 300)), stage(t, rows('b2', 1, 300))]);
    await t.merge([batchOf(t.arrowSchema(), rows('b1', 1, 5, 'upd'))], { keys: ['id', 'BRANCH_ID'] }); // leaves a delete file behind
    const before = t.currentSnapshotId();

    const r = await t.replaceDataFiles([stage(t, rows('b1', 1000, 200, 'new')), stage(t, rows('b3', 1, 50, 'new'))]);
    expect(r.snapshotId).not.toBe(before);
    const want = [...rows('b1', 1000, 200, 'new'), ...rows('b3', 1, 50, 'new')].map((x) => `${x.BRANCH_ID}|${x.id}|${x.note}`).sort();
    const own = (await scanRows(t)).map((x) => `${x.BRANCH_ID}|${x.id}|${x.note}`).sort();
    expect(own).toEqual(want);
    expect((await icebirdRows(t)).map((x) => `${x.BRANCH_ID}|${x.id}|${x.note}`).sort()).toEqual(want);
    expect((await chdbQuery(t, 'SELECT BRANCH_ID, id, note FROM T')).map((x) => `${x.BRANCH_ID}|${x.id}|${x.note}`).sort()).toEqual(want);
    expect((await t.files()).every((f) => f.content === 'data')).toBe(true);
    expect(t.snapshots().find((s) => String(s['snapshot-id']) === String(r.snapshotId))?.summary.operation).toBe('overwrite');

    // one partition: b1 replaced, b3 untouched
    await t.replaceDataFiles([stage(t, rows('b1', 5000, 20, 'p'))], { partition: { BRANCH_ID: 'b1' } });
    const want2 = [...rows('b1', 5000, 20, 'p'), ...rows('b3', 1, 50, 'new')].map((x) => `${x.BRANCH_ID}|${x.id}|${x.note}`).sort();
    expect((await scanRows(t)).map((x) => `${x.BRANCH_ID}|${x.id}|${x.note}`).sort()).toEqual(want2);
    expect((await chdbQuery(t, 'SELECT BRANCH_ID, id, note FROM T')).map((x) => `${x.BRANCH_ID}|${x.id}|${x.note}`).sort()).toEqual(want2);
    const sums = await chdbQuery(t, 'SELECT count() AS c, sum(n) AS s FROM T');
    const all = [...rows('b1', 5000, 20, 'p'), ...rows('b3', 1, 50, 'new')];
    expect(Number(sums[0].c)).toBe(all.length);
    expect(Number(sums[0].s)).toBe(all.reduce((a, x) => a + ((x.n as number | null) ?? 0), 0));

    // a file of another partition is refused, nothing committed
    const snap = t.currentSnapshotId();
    await expect(t.replaceDataFiles([stage(t, rows('b3', 1, 5))], { partition: { BRANCH_ID: 'b1' } })).rejects.toThrow(/another partition/);
    await t.refresh();
    expect(t.currentSnapshotId()).toBe(snap);

    // several partitions in one commit: b1 and b3 (with a delete file after a merge) replaced, b2 (empty until now) gains
    // rows, b4 (never written) is named with no file, and nothing of another partition is accepted
    await t.appendDataFiles([stage(t, rows('b4', 1, 30, 'keep'))]);
    await t.merge([batchOf(t.arrowSchema(), rows('b3', 1, 3, 'upd'))], { keys: ['id', 'BRANCH_ID'] });
    await expect(t.replaceDataFiles([stage(t, rows('b4', 1, 5))], { partitions: [{ BRANCH_ID: 'b1' }, { BRANCH_ID: 'b3' }] })).rejects.toThrow(/another partition/);
    await expect(t.replaceDataFiles([], { partitions: [] })).rejects.toThrow(/partitions/);
    const multi = await t.replaceDataFiles([stage(t, rows('b1', 7000, 10, 'm')), stage(t, rows('b2', 1, 20, 'm'))], { partitions: [{ BRANCH_ID: 'b1' }, { BRANCH_ID: 'b2' }, { BRANCH_ID: 'b3' }] });
    expect(t.snapshots().find((s) => String(s['snapshot-id']) === String(multi.snapshotId))?.summary.operation).toBe('overwrite');
    const want3 = [...rows('b1', 7000, 10, 'm'), ...rows('b2', 1, 20, 'm'), ...rows('b4', 1, 30, 'keep')].map((x) => `${x.BRANCH_ID}|${x.id}|${x.note}`).sort();
    expect((await scanRows(t)).map((x) => `${x.BRANCH_ID}|${x.id}|${x.note}`).sort()).toEqual(want3);
    expect((await icebirdRows(t)).map((x) => `${x.BRANCH_ID}|${x.id}|${x.note}`).sort()).toEqual(want3);
    expect((await chdbQuery(t, 'SELECT BRANCH_ID, id, note FROM T')).map((x) => `${x.BRANCH_ID}|${x.id}|${x.note}`).sort()).toEqual(want3);
    expect((await t.files()).every((f) => f.content === 'data')).toBe(true); // b3's delete file went with its data
  });
});
