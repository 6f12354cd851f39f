import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as arrow from 'apache-arrow';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { readAvroFile } from './avro';
import { plainRow } from './format';
import { textColumn, textValue } from './text-values';
import { openLake, openTableFolder, type Lake, type LakeTable } from './index';
import { arrowTypeOf } from './schema';
import { makeWarehouse } from './test-helpers';

// Reference cases: fixtures/<case>/case.json, looped by one test; plus the
// tables other engines wrote (foreign.json), read by the lake's own reader.

const dir = path.resolve(import.meta.dirname, 'fixtures');
// The shared fixtures (tables written by Spark, Java, Athena) sit beside the repository:
// `../shared/fixtures` from its root, wherever it is cloned.
const repoRoot = path.resolve(import.meta.dirname, '../..');
const foreignDir = path.resolve(repoRoot, '../shared/fixtures/iceberg-foreign');
const cases = fs.readdirSync(dir).filter((d) => fs.existsSync(path.join(dir, d, 'case.json')));

interface Col { name: string; type: string; nullable: boolean }
const schemaOf = (cols: Col[]) => new arrow.Schema(cols.map((c) => new arrow.Field(c.name, arrowTypeOf(c.type, c.name), c.nullable)));

function batchOf(schema: arrow.Schema, rows: Record<string, unknown>[]): arrow.RecordBatch {
  const children = schema.fields.map((f) => textColumn(f.type, rows.map((r) => (r[f.name] === null || r[f.name] === undefined ? null : textValue(f.type, String(r[f.name]))))));
  return new arrow.RecordBatch(schema, arrow.makeData({ type: new arrow.Struct(schema.fields), length: rows.length, nullCount: 0, children }));
}

const json = (v: unknown) => JSON.parse(JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? String(x) : Buffer.isBuffer(x) ? x.toString('hex') : x)));

async function rowsOf(t: LakeTable) {
  const out: Record<string, unknown>[] = [];
  for await (const b of t.scan()) for (let i = 0; i < b.numRows; i++) out.push(plainRow(b, i));
  return out.sort((a, b) => Number(a.BRANCH_ID) - Number(b.BRANCH_ID) || Number(a.id) - Number(b.id));
}

describe('reference cases', () => {
  let db: TestDatabase; let lake: Lake;
  const wh = makeWarehouse();
  beforeAll(async () => { db = await createTestDatabase(); lake = openLake({ pool: db.pool, warehouse: wh.uri }); });
  afterAll(async () => { await db?.drop(); wh.remove(); });

  test.each(cases)('%s', async (name) => {
    const c = JSON.parse(fs.readFileSync(path.join(dir, name, 'case.json'), 'utf8'));
    const t = await lake.createTable(`cases.${name.replace(/-/g, '_')}`, { schema: schemaOf(c.schema), partitionBy: c.partitionBy });
    for (const s of c.steps) {
      let r: unknown;
      if (s.op === 'append') r = await t.append([batchOf(t.arrowSchema(), s.rows)]);
      else if (s.op === 'merge') r = await t.merge([batchOf(t.arrowSchema(), s.rows)], { keys: s.keys });
      else if (s.op === 'delete') r = await t.deleteWhere({ keys: { columns: s.keys, values: s.values } });
      else if (s.op === 'evolve') r = await t.evolveSchema(schemaOf(s.schema));
      else if (s.op === 'compact') r = await t.compact();
      if (s.result) expect(r).toMatchObject(s.result);
    }
    const m = t.metadata();
    expect(json(m)).toMatchObject(c.expect.metadata);
    expect(m.snapshots).toHaveLength(c.expect.snapshots.length);
    c.expect.snapshots.forEach((s: object, i: number) => expect(json(m.snapshots[i])).toMatchObject(s));
    // every snapshot points at its parent; the log follows the snapshots
    m.snapshots.forEach((s, i) => { if (i) expect(s['parent-snapshot-id']).toBe(m.snapshots[i - 1]['snapshot-id']); });
    expect(m['snapshot-log'].map((l) => l['snapshot-id'])).toEqual(m.snapshots.map((s) => s['snapshot-id']));
    expect(m.refs.main['snapshot-id']).toBe(m['current-snapshot-id']);
    const hint = fs.readFileSync(new URL(`${t.location}/metadata/version-hint.text`), 'utf8');
    expect(t.metadataLocation().endsWith(`/v${hint}.metadata.json`)).toBe(true);

    const list = readAvroFile(fs.readFileSync(new URL(m.snapshots.at(-1)!['manifest-list'])), 'list');
    expect(list.meta['format-version']).toBe('2');
    expect(list.meta['snapshot-id']).toBe(String(m['current-snapshot-id']));
    expect(json(list.records)).toMatchObject(c.expect.manifestList);
    if (c.expect.manifestEntry) {
      const mf = readAvroFile(fs.readFileSync(new URL((list.records[0] as { manifest_path: string }).manifest_path)), 'manifest');
      expect(mf.meta).toMatchObject({ 'format-version': '2', 'partition-spec-id': '0' });
      expect(JSON.parse(mf.meta['partition-spec'])).toEqual(m['partition-specs'][0].fields);
      expect(json(mf.records[0])).toMatchObject(c.expect.manifestEntry);
      const df = (mf.records[0] as { data_file: { lower_bounds: { key: number; value: Buffer }[]; upper_bounds: { key: number; value: Buffer }[] } }).data_file;
      for (const [id, want] of Object.entries(c.expect.bounds ?? {})) {
        const lo = df.lower_bounds.find((b) => b.key === Number(id))?.value.toString('hex') ?? null;
        const hi = df.upper_bounds.find((b) => b.key === Number(id))?.value.toString('hex') ?? null;
        expect(want === null ? null : [lo, hi]).toEqual(want === null ? lo : want);
      }
    }
    expect(await rowsOf(t)).toEqual(c.expect.rows);
  });

  test('manifests carry the same Avro field names and ids as Spark writes', async () => {
    const spark = JSON.parse(fs.readFileSync(path.join(foreignDir, 'avro/a85973e4-4009-4cba-875e-5278a2c6027d-m0.metadata.json'), 'utf8')).metadata['avro.schema'];
    const t = await lake.loadTable('cases.append_partitioned');
    const list = readAvroFile(fs.readFileSync(new URL(t.snapshots().at(-1)!['manifest-list'])), 'list');
    const ours = readAvroFile(fs.readFileSync(new URL((list.records[0] as { manifest_path: string }).manifest_path)), 'manifest').schema;
    const ids = (s: { fields: { name: string; 'field-id': number; type: unknown }[] }): unknown => s.fields.map((f) => {
      const inner = f.type as { type?: string; fields?: unknown };
      return [f.name, f['field-id'], inner?.type === 'record' && f.name !== 'partition' ? ids(inner as never) : null];
    });
    expect(ids(ours as never)).toEqual(ids(spark));
  });
});

describe('tables written by other engines', () => {
  const foreign = JSON.parse(fs.readFileSync(path.join(dir, 'foreign.json'), 'utf8')) as { root: string; tables: { path: string; rows: number; columns?: string[] }[] };
  test.each(foreign.tables)('$path', async (f) => {
    const t = await openTableFolder(path.join(path.resolve(repoRoot, foreign.root), f.path));
    let n = 0; let cols: string[] = [];
    for await (const b of t.scan()) { n += b.numRows; cols = b.schema.fields.map((x) => x.name); }
    expect(n).toBe(f.rows);
    if (f.columns) expect(cols).toEqual(f.columns);
  });
});
