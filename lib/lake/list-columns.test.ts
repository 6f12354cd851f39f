import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as arrow from 'apache-arrow';
import fs from 'node:fs';
import { parquetMetadataAsync } from 'hyparquet';
import { readAvroFile } from './avro';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { openLake, type Lake, type LakeTable } from './index';
import { batchOf, chdbQuery, icebirdRows, makeWarehouse, scanRows } from './test-helpers';

// List columns (PostgreSQL arrays): the metadata's list type with an element id,
// Parquet files whose element carries that id, no statistics that would break
// on a nested column, and every reader (own scan, icebird, ClickHouse) seeing
// the same lists — after append, merge (take/concat of list rows) and compact.

const list = (t: arrow.DataType) => new arrow.List(new arrow.Field('element', t, true));
const SCHEMA = new arrow.Schema([
  new arrow.Field('BRANCH_ID', new arrow.Utf8(), false),
  new arrow.Field('id', new arrow.Int32(), false),
  new arrow.Field('tags', list(new arrow.Utf8()), true),
  new arrow.Field('nums', list(new arrow.Int32()), true),
]);
type Row = { BRANCH_ID: string; id: number; tags: (string | null)[] | null; nums: (number | null)[] | null };
const rowsOf = (b: string, from: number, to: number, salt = ''): Row[] => Array.from({ length: to - from }, (_, k) => {
  const id = from + k;
  return { BRANCH_ID: b, id, tags: id % 5 === 0 ? null : id % 7 === 0 ? [] : [`t${id}${salt}`, null, 'a{b}c'], nums: id % 3 === 0 ? [null] : [id, -id, null] };
});
const canon = (r: Record<string, unknown>) => JSON.stringify([String(r.BRANCH_ID), Number(r.id), listOf(r.tags), listOf(r.nums)]);
function listOf(v: unknown): unknown[] | null {
  if (v === null || v === undefined) return null;
  const arr = Array.isArray(v) ? v : [...(v as Iterable<unknown>)];
  return arr.map((x) => (x === null || x === undefined ? null : typeof x === 'bigint' ? Number(x) : x));
}

describe('lake list columns', () => {
  let db: TestDatabase;
  let lake: Lake;
  let t: LakeTable;
  const wh = makeWarehouse();
  const model = new Map<string, Row>();

  beforeAll(async () => {
    db = await createTestDatabase();
    lake = openLake({ pool: db.pool, warehouse: wh.uri });
  });
  afterAll(async () => { await db?.drop(); wh.remove(); });

  async function expectReaders(): Promise<void> {
    const want = [...model.values()].map(canon).sort();
    expect((await scanRows(t)).map(canon).sort()).toEqual(want);
    expect((await icebirdRows(t)).map(canon).sort()).toEqual(want);
    // ClickHouse has no NULL array: a NULL list reads as []
    expect((await chdbQuery(t, 'SELECT BRANCH_ID, id, tags, nums FROM T')).map(canon).sort())
      .toEqual([...model.values()].map((r) => canon({ ...r, tags: r.tags ?? [], nums: r.nums ?? [] })).sort());
  }

  test('create: list types with element ids in the metadata and in the Parquet files', async () => {
    t = await lake.createTable('ns.lists', { schema: SCHEMA, partitionBy: ['BRANCH_ID'], identifierColumns: ['BRANCH_ID', 'id'] });
    const m = t.metadata();
    const s = m.schemas.find((x) => x['schema-id'] === m['current-schema-id'])!;
    expect(s.fields.map((f) => f.type)).toEqual(['string', 'int',
      { type: 'list', 'element-id': 5, element: 'string', 'element-required': false },
      { type: 'list', 'element-id': 6, element: 'int', 'element-required': false }]);
    expect(s['identifier-field-ids']).toEqual([1, 2]);
    expect(t.metadata()['last-column-id']).toBe(6);
    expect(JSON.parse(t.metadata().properties['schema.name-mapping.default'])[2]).toEqual({ 'field-id': 3, names: ['tags'], fields: [{ 'field-id': 5, names: ['element'] }] });
    for (const b of ['A', 'B']) for (const r of rowsOf(b, 1, 400)) model.set(`${b}|${r.id}`, r);
    await t.append([batchOf(SCHEMA, [...model.values()])]);
    const files = await t.files();
    expect(files.length).toBe(2);
    const bytes = new Uint8Array(await lake.storage.read(files[0].path));
    const md = await parquetMetadataAsync(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
    const el = md.schema.filter((x) => x.name === 'element').map((x) => x.field_id);
    expect(el).toEqual([5, 6]);
    // manifest metrics: the list's leaf (element id) has value and null counts; no bounds on lists
    const list = readAvroFile(fs.readFileSync(new URL(t.snapshots().at(-1)!['manifest-list'])), 'list');
    const entries = readAvroFile(fs.readFileSync(new URL((list.records[0] as { manifest_path: string }).manifest_path)), 'manifest').records as { data_file: { value_counts: { key: number; value: bigint }[]; null_value_counts: { key: number; value: bigint }[]; lower_bounds: { key: number }[] } }[];
    const rows = [...model.values()];
    const elements = rows.reduce((a, r) => a + (r.tags?.length ?? 0), 0);
    const nullElements = rows.reduce((a, r) => a + (r.tags?.filter((x) => x === null).length ?? 0), 0);
    const sum = (k: 'value_counts' | 'null_value_counts', id: number) => entries.reduce((a, e) => a + Number(e.data_file[k].find((x) => x.key === id)?.value ?? 0), 0);
    expect(sum('value_counts', 5)).toBe(elements);
    expect(sum('null_value_counts', 5)).toBe(nullElements);
    expect(entries.every((e) => e.data_file.value_counts.every((x) => x.key !== 3) && e.data_file.lower_bounds.every((x) => ![3, 4, 5, 6].includes(x.key)))).toBe(true);
    await expectReaders();
  });

  test('merge and compact keep lists intact', async () => {
    const changes = [...rowsOf('A', 350, 450, 'x'), ...rowsOf('B', 1, 20, 'y')];
    for (const r of changes) model.set(`${r.BRANCH_ID}|${r.id}`, r);
    const res = await t.merge([batchOf(SCHEMA, changes)], { keys: ['id', 'BRANCH_ID'] });
    expect(res.updated + res.inserted).toBe(changes.length);
    await expectReaders();
    await t.compact({});
    await expectReaders();
  });

  test('evolve: an added list gets fresh field and element ids; list<int> → list<long> is promoted in place', async () => {
    const base = new arrow.Schema([SCHEMA.fields[0], SCHEMA.fields[1]]);
    const e = await lake.createTable('ns.evolving', { schema: base, partitionBy: ['BRANCH_ID'] });
    const withList = new arrow.Schema([...base.fields, new arrow.Field('nums', list(new arrow.Int32()), true)]);
    expect((await e.evolveSchema(withList)).changes).toEqual(['add column nums list<int>']);
    const cur = () => { const m = e.metadata(); return { m, s: m.schemas.find((x) => x['schema-id'] === m['current-schema-id'])! }; };
    expect(cur().s.fields[2]).toEqual({ id: 3, name: 'nums', required: false, type: { type: 'list', 'element-id': 4, element: 'int', 'element-required': false } });
    expect(cur().m['last-column-id']).toBe(4);
    await e.append([batchOf(withList, [{ BRANCH_ID: 'A', id: 1, nums: [1, null] }])]);
    const wider = new arrow.Schema([...base.fields, new arrow.Field('nums', list(new arrow.Int64()), true)]);
    expect(await e.evolveSchema(wider)).toEqual({ changes: ['promote nums list<int> -> list<long>'], rewritten: false });
    expect(cur().s.fields[2].type).toEqual({ type: 'list', 'element-id': 4, element: 'long', 'element-required': false });
    await e.append([batchOf(wider, [{ BRANCH_ID: 'A', id: 2, nums: [2n ** 40n] }])]);
    expect((await scanRows(e)).map((r) => listOf(r.nums)).sort()).toEqual([[1, null], [2 ** 40]]);
    expect((await icebirdRows(e)).map((r) => listOf(r.nums)).sort()).toEqual([[1, null], [2 ** 40]]);
  });

  test('a list column cannot be a filter', async () => {
    await expect(scanRows(t, { filter: [{ column: 'tags', gte: 'a' }] })).rejects.toThrow(/tags is a list/);
  });
});
