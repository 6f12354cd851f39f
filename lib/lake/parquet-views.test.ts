import * as arrow from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { lakeEncoders } from './encoder-pool';
import { openLake, type Lake } from './index';
import { encodeParquet, readParquetBatches } from './parquet';
import { visitParquetColumns } from './parquet-views';
import { FIELD_ID } from './schema';
import { chdbQuery, icebirdRows, makeWarehouse, scanRows } from './test-helpers';

// A file's fixed-width columns visited as views of parquet-wasm's heap (parquet-views.ts) must hold
// exactly what the ordinary reader (IPC copies) returns: every type the lake writes, with nulls, over
// several row groups and batches. A merge's candidate files are read this way: its outcome must be
// what every reader reads.

const field = (name: string, type: arrow.DataType, id: number, nullable = true) => new arrow.Field(name, type, nullable, new Map([[FIELD_ID, String(id)]]));
const SCHEMA = new arrow.Schema([
  field('i32', new arrow.Int32(), 1),
  field('i64', new arrow.Int64(), 2, false),
  field('f32', new arrow.Float32(), 3),
  field('f64', new arrow.Float64(), 4),
  field('day', new arrow.DateDay(), 5),
  field('ts', new arrow.TimestampMicrosecond(), 6),
  field('tstz', new arrow.TimestampMicrosecond('UTC'), 7),
  field('tod', new arrow.TimeMicrosecond(), 8),
  field('dec', new arrow.Decimal(2, 18, 128), 9),
  field('flag', new arrow.Bool(), 10),
  field('name', new arrow.Utf8(), 11),
]);

const N = 10_000;
/** Row i's values (null in every nullable column at some rows, each column at its own rows). */
function rows(): Record<string, unknown>[] {
  return Array.from({ length: N }, (_, i) => {
    const nul = (k: number) => (i * 7 + k) % 11 === 0;
    return {
      i32: nul(1) ? null : (i * 2654435761) | 0,
      i64: BigInt(i) * 3_000_000_007n - 2n ** 62n,
      f32: nul(3) ? null : Math.fround(i / 3),
      f64: nul(4) ? null : i * Math.PI - 1e6,
      day: nul(5) ? null : i - 5000,
      ts: nul(6) ? null : BigInt(i) * 1_000_003n - 10n ** 12n,
      tstz: nul(7) ? null : 1_700_000_000_000_000n + BigInt(i),
      tod: nul(8) ? null : BigInt(i) * 8_640_000n,
      dec: nul(9) ? null : new Uint32Array([i * 977 >>> 0, i % 3 === 0 ? 0xffffffff : 0, i % 3 === 0 ? 0xffffffff : 0, i % 3 === 0 ? 0xffffffff : 0]),
      flag: nul(10) ? null : i % 3 === 1,
      name: `n${i}`,
    };
  });
}

/** A column of `type` from values (null: a null), built straight into its buffers. */
function column(type: arrow.DataType, vs: unknown[]): arrow.Data {
  const n = vs.length;
  const valid = new Uint8Array(Math.ceil(n / 8));
  let nulls = 0;
  vs.forEach((v, i) => { if (v === null) nulls++; else valid[i >> 3] |= 1 << (i & 7); });
  const present = <T>(f: (v: unknown) => T, zero: T) => vs.map((v) => (v === null ? zero : f(v)));
  let data: ArrayBufferView;
  switch (type.typeId) {
    case arrow.Type.Decimal: { const w = new Uint32Array(n * 4); vs.forEach((v, i) => { if (v !== null) w.set(v as Uint32Array, 4 * i); }); data = w; break; }
    case arrow.Type.Bool: { const b = new Uint8Array(Math.ceil(n / 8)); vs.forEach((v, i) => { if (v) b[i >> 3] |= 1 << (i & 7); }); data = b; break; }
    case arrow.Type.Float: data = (type as arrow.Float).precision === arrow.Precision.SINGLE ? Float32Array.from(present(Number, 0)) : Float64Array.from(present(Number, 0)); break;
    case arrow.Type.Date: case arrow.Type.Int: if ((type as arrow.Int).bitWidth !== 64) { data = Int32Array.from(present(Number, 0)); break; }
    // falls through: 64-bit integers
    default: data = BigInt64Array.from(present((v) => v as bigint, 0n));
  }
  return arrow.makeData({ type, length: n, nullCount: nulls, data, nullBitmap: nulls ? valid : undefined } as never);
}

function batch(rs: Record<string, unknown>[]): arrow.RecordBatch {
  const children = SCHEMA.fields.map((f) => (f.name === 'name' ? arrow.vectorFromArray(rs.map((r) => r.name), f.type).data[0] : column(f.type, rs.map((r) => r[f.name]))));
  return new arrow.RecordBatch(SCHEMA, arrow.makeData({ type: new arrow.Struct(SCHEMA.fields), length: rs.length, nullCount: 0, children }));
}

/** A column's values as comparable text (bigints and word arrays spelt out, nulls as null). */
const cells = (v: arrow.Vector) => Array.from({ length: v.length }, (_, i) => {
  const x = v.get(i);
  return x === null ? null : typeof x === 'bigint' ? `${x}n` : x instanceof Uint32Array ? `[${[...x].join(',')}]` : x;
});

describe('fixed-width columns visited in parquet-wasm\'s heap', () => {
  const bytes = encodeParquet(SCHEMA, [batch(rows())], { rowGroupRows: 3_000 });
  const fixedIds = new Set(SCHEMA.fields.filter((f) => f.name !== 'name').map((f) => Number(f.metadata.get(FIELD_ID))));

  test('every fixed-width type, with nulls, over several row groups, holds what the ordinary reader reads', async () => {
    const want = new Map<string, unknown[]>();
    for await (const b of readParquetBatches(bytes, 'f', { fieldIds: fixedIds })) {
      for (const f of b.schema.fields) want.set(f.name, [...(want.get(f.name) ?? []), ...cells(b.getChild(f.name)!)]);
    }
    expect(want.size).toBe(10);
    const got = new Map<string, unknown[]>();
    let batches = 0;
    const visited = await visitParquetColumns(bytes, 'f', fixedIds, (b) => {
      batches++;
      for (const f of b.schema.fields) got.set(f.name, [...(got.get(f.name) ?? []), ...cells(b.getChild(f.name)!)]);
    });
    expect(visited).toBe(true);
    expect(batches).toBeGreaterThanOrEqual(4); // 3,000-row groups
    expect([...got.keys()]).toEqual([...want.keys()]);
    for (const [k, v] of want) {
      expect(got.get(k), k).toHaveLength(N);
      expect(got.get(k), k).toEqual(v);
    }
    // and both equal the rows written (nulls where they were)
    const src = rows();
    expect(got.get('i64')).toEqual(src.map((r) => `${r.i64}n`));
    expect(got.get('i32')!.filter((x) => x === null)).toHaveLength(src.filter((r) => r.i32 === null).length);
    expect(got.get('flag')).toEqual(src.map((r) => r.flag));
  });

  test('a column of another type is not visited: nothing is, and the caller reads the file the usual way', async () => {
    let called = 0;
    expect(await visitParquetColumns(bytes, 'f', new Set([2, 11]), () => { called++; })).toBe(false);
    expect(called).toBe(0);
  });

  test('a file that is not Parquet is refused as the ordinary reader refuses it; a visitor that throws stops the read', async () => {
    await expect(visitParquetColumns(new TextEncoder().encode('not a parquet file at all, just bytes'), 'bad.parquet', fixedIds, () => {})).rejects.toThrow(/corrupt Parquet file bad\.parquet/);
    let seen = 0;
    await expect(visitParquetColumns(bytes, 'f', fixedIds, () => { if (++seen === 2) throw new Error('stop here'); })).rejects.toThrow('stop here');
    expect(seen).toBe(2);
    // the reader is usable after that
    expect(await visitParquetColumns(bytes, 'f', new Set([2]), () => {})).toBe(true);
  });
});

describe('a merge reads its candidate files\' fixed-width columns in-thread', () => {
  let db: TestDatabase;
  let lake: Lake;
  const wh = makeWarehouse();
  beforeAll(async () => { db = await createTestDatabase(); lake = openLake({ pool: db.pool, warehouse: wh.uri }); });
  afterAll(async () => { await db?.drop(); wh.remove(); });

  test('updates carrying a nullable timestamp, inserts and deletes over several files come out as every reader reads them', async () => {
    const schema = new arrow.Schema([
      new arrow.Field('BRANCH_ID', new arrow.Int32(), false), new arrow.Field('id', new arrow.Int64(), false),
      new arrow.Field('created_at', new arrow.TimestampMicrosecond(), true), new arrow.Field('v', new arrow.Utf8(), true),
    ]);
    const t = await lake.createTable('v.m', { schema, partitionBy: ['BRANCH_ID'] });
    type R = { BRANCH_ID: number; id: bigint; created_at: bigint | null; v: string };
    const model = new Map<string, R>();
    const mk = (b: number, from: number, to: number, v: string, created: (i: number) => bigint | null): R[] => Array.from({ length: to - from }, (_, k) => ({ BRANCH_ID: b, id: BigInt(from + k), created_at: created(from + k), v }));
    const asBatch = (rs: R[]) => {
      const cols = schema.fields.map((f) => (f.name === 'v' ? arrow.vectorFromArray(rs.map((r) => r.v), f.type).data[0] : column(f.type, rs.map((r) => r[f.name as keyof R]))));
      return new arrow.RecordBatch(schema, arrow.makeData({ type: new arrow.Struct(schema.fields), length: rs.length, nullCount: 0, children: cols }));
    };
    for (const b of [1, 2]) for (const [from, to] of [[0, 3000], [3000, 6000]]) {
      const rs = mk(b, from, to, 'old', (i) => (i % 5 === 0 ? null : BigInt(i) * 1_000_000n));
      await t.append([asBatch(rs)]);
      for (const r of rs) model.set(`${r.BRANCH_ID}|${r.id}`, r);
    }
    // an idle encoder worker, which would read the candidate files were they not visited here
    await lakeEncoders().encode(SCHEMA, [batch(rows().slice(0, 10))], { compression: 'snappy' }, 1000);
    expect(lakeEncoders().idleStarted).toBe(true);
    const before = lakeEncoders().readsServed;
    const changes = [...mk(1, 2990, 3010, 'new', () => 42_000_000n), ...mk(2, 5995, 6005, 'new', () => 42_000_000n)];
    const r = await t.merge([asBatch(changes)], { keys: ['BRANCH_ID', 'id'], carryForward: ['created_at'], deleteKeys: [[1, 7], [2, 4000]] });
    for (const c of changes) {
      const old = model.get(`${c.BRANCH_ID}|${c.id}`);
      model.set(`${c.BRANCH_ID}|${c.id}`, { ...c, created_at: old ? old.created_at : c.created_at });
    }
    model.delete('1|7'); model.delete('2|4000');
    expect({ updated: r.updated, inserted: r.inserted, deleted: r.deleted }).toEqual({ updated: 20 + 5, inserted: 5, deleted: 2 });
    // the candidate files' key and timestamp columns were visited here, not read by an encoder worker
    expect(lakeEncoders().readsServed).toBe(before);
    // created_at as µs text from each reader's spelling: bigint µs (the model), milliseconds (the scan), a Date (icebird), µs (chdb)
    const micros = (x: unknown) => (x === null || x === undefined ? null : typeof x === 'bigint' ? String(x) : x instanceof Date ? String(x.getTime() * 1000) : String(Math.round(Number(x) * 1000)));
    const canon = (x: Record<string, unknown>, us: (v: unknown) => string | null = micros) => `${Number(x.BRANCH_ID)}|${Number(x.id)}|${us(x.created_at)}|${x.v}`;
    const want = [...model.values()].map((x) => canon(x)).sort();
    expect((await scanRows(t)).map((x) => canon(x)).sort()).toEqual(want);
    expect((await icebirdRows(t)).map((x) => canon(x)).sort()).toEqual(want);
    const chMicros = (v: unknown) => (v === null || v === undefined ? null : String(v));
    expect((await chdbQuery(t, 'SELECT BRANCH_ID, id, toUnixTimestamp64Micro(created_at) AS created_at, v FROM T')).map((x) => canon(x, chMicros)).sort()).toEqual(want);
  });
});
