import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as arrow from 'apache-arrow';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ParquetEncoderPool } from './encoder-pool';
import { openLake, type Lake } from './index';
import { readParquetBatches } from './parquet';
import { batchOf, chdbQuery, icebirdRows, makeWarehouse, scanRows } from './test-helpers';

// Integer-like columns are written DELTA_BINARY_PACKED with no dictionary tried first
// (parquet-writer-properties.mjs) — many distinct values and few (`s`) alike — with increasing,
// random, negative and null values, read back equal by the lake's scan, icebird and ClickHouse
// (chdb), and then merged into by key.

const SCHEMA = new arrow.Schema([
  new arrow.Field('id', new arrow.Int64(), false),
  new arrow.Field('r', new arrow.Int64(), true),
  new arrow.Field('q', new arrow.Int32(), true),
  new arrow.Field('ts', new arrow.TimestampMicrosecond('UTC'), true),
  new arrow.Field('d', new arrow.DateDay(), true),
  new arrow.Field('s', new arrow.Int32(), true),
]);

const N = 40_000;
type Row = { id: number; r: number | null; q: number | null; ts: number | null; d: number | null; s: number | null };
// a fixed pseudo-random sequence: the test reads the same data every run
let seed = 12345;
const rand = () => { seed = (Math.imul(seed, 1103515245) + 12345) >>> 0; return seed / 2 ** 32; };
const rows: Row[] = Array.from({ length: N }, (_, i) => ({
  id: 1_000_000 + i,
  r: i % 11 === 0 ? null : Math.floor((rand() - 0.5) * 2 ** 50),
  q: i % 13 === 0 ? null : Math.floor((rand() - 0.5) * 2 ** 31),
  ts: i % 17 === 0 ? null : 1_700_000_000_000 + i * 1000 + Math.floor(rand() * 500), // milliseconds
  d: i % 19 === 0 ? null : Math.floor((rand() - 0.3) * 60_000), // days around 1970 ± 100 years: past an int32 dictionary page
  s: i % 23 === 0 ? null : Math.floor(rand() * 5) - 2, // five values: a dictionary would never have been left
}));

const canon = (r: Row) => `${r.id}|${r.r}|${r.q}|${r.ts}|${r.d}|${r.s}`;
const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const ms = (v: unknown): number | null => (v === null || v === undefined ? null : v instanceof Date ? v.getTime() : typeof v === 'bigint' ? Number(v / 1000n) : Number(v));
const days = (v: unknown): number | null => (v === null || v === undefined ? null : v instanceof Date ? Math.round(v.getTime() / 86_400_000) : typeof v === 'string' ? Math.round(Date.parse(`${v}T00:00:00Z`) / 86_400_000) : Number(v));

function toBatch(rs: Row[]): arrow.RecordBatch {
  return batchOf(SCHEMA, rs.map((x) => ({ id: BigInt(x.id), r: x.r === null ? null : BigInt(x.r), q: x.q, ts: x.ts, d: x.d === null ? null : new Date(x.d * 86_400_000), s: x.s })));
}

/** Each column's encodings over a file's row groups: [name, delta-packed, dictionary]. */
async function encodingsOf(bytes: Uint8Array): Promise<[string, boolean, boolean][]> {
  const { parquetMetadata } = await import('hyparquet');
  const md = parquetMetadata(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
  return SCHEMA.fields.map((f) => {
    const encodings = new Set(md.row_groups.flatMap((g) => g.columns.filter((c) => c.meta_data!.path_in_schema[0] === f.name).flatMap((c) => c.meta_data!.encodings)));
    return [f.name, encodings.has('DELTA_BINARY_PACKED'), encodings.has('PLAIN_DICTIONARY') || encodings.has('RLE_DICTIONARY')];
  });
}

describe('integer-like columns written DELTA_BINARY_PACKED', () => {
  test('in lib/etl\'s staged files too (they become data files as they are): streamed, written by a worker, or inline', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'staged-delta-'));
    const pool = new ParquetEncoderPool(1, { compression: 'snappy' });
    try {
      const streamed = path.join(dir, 'streamed.parquet');
      const s = pool.stream(streamed);
      s.add([toBatch(rows.slice(0, N / 2))]);
      s.add([toBatch(rows.slice(N / 2))]);
      await s.finish();
      const written = path.join(dir, 'written.parquet');
      await pool.write(written, [toBatch(rows)]); // more than an inline encode's worth: a worker's
      const inline = path.join(dir, 'inline.parquet');
      await pool.write(inline, [toBatch(rows.slice(0, 1000))]);
      for (const [file, n] of [[streamed, N], [written, N], [inline, 1000]] as const) {
        const bytes = fs.readFileSync(file);
        expect(await encodingsOf(bytes), file).toEqual(SCHEMA.fields.map((f) => [f.name, true, false]));
        const ids: number[] = [];
        for await (const b of readParquetBatches(bytes, file)) ids.push(...Array.from(b.getChild('id')!.toArray() as BigInt64Array, Number));
        expect(ids).toEqual(rows.slice(0, n).map((r) => r.id));
      }
    } finally {
      await pool.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  let db: TestDatabase;
  let lake: Lake;
  const wh = makeWarehouse();
  beforeAll(async () => { db = await createTestDatabase(); lake = openLake({ pool: db.pool, warehouse: wh.uri }); });
  afterAll(async () => { await db?.drop(); wh.remove(); });

  test('read back equal through the scan, icebird and chdb, before and after a merge', async () => {
    const t = await lake.createTable('e.t', { schema: SCHEMA });
    await t.append([toBatch(rows)]);
    // the file really holds delta-packed pages for every integer-like column
    const { parquetMetadataAsync } = await import('hyparquet');
    const [file] = await t.files();
    const blob = await lake.storage.blob(file.path);
    const md = await parquetMetadataAsync({ byteLength: blob.size, slice: (a: number, b?: number) => blob.slice(a, b).arrayBuffer() });
    for (const name of ['id', 'r', 'q', 'ts', 'd', 's']) {
      const encodings = new Set(md.row_groups.flatMap((g) => g.columns.filter((c) => c.meta_data!.path_in_schema[0] === name).flatMap((c) => c.meta_data!.encodings)));
      const dictionary = encodings.has('PLAIN_DICTIONARY') || encodings.has('RLE_DICTIONARY');
      expect([name, encodings.has('DELTA_BINARY_PACKED'), dictionary]).toEqual([name, true, false]);
    }
    const model = new Map(rows.map((x) => [x.id, x]));
    const check = async () => {
      const want = [...model.values()].map(canon).sort();
      // the scan's dates are Arrow DateDay values: milliseconds since the epoch
      const own = (await scanRows(t)).map((x) => canon({ id: Number(x.id), r: num(x.r), q: num(x.q), ts: num(x.ts), d: x.d === null ? null : Math.round(Number(x.d) / 86_400_000), s: num(x.s) })).sort();
      expect(own).toEqual(want);
      const ib = (await icebirdRows(t)).map((x) => canon({ id: Number(x.id), r: num(x.r), q: num(x.q), ts: ms(x.ts), d: days(x.d), s: num(x.s) })).sort();
      expect(ib).toEqual(want);
      const ch = (await chdbQuery(t, "SELECT id, toString(r) AS r, q, toUnixTimestamp64Milli(ts) AS ts, toString(d) AS d, s FROM T"))
        .map((x) => canon({ id: Number(x.id), r: num(x.r), q: num(x.q), ts: num(x.ts), d: days(x.d), s: num(x.s) })).sort();
      expect(ch).toEqual(want);
    };
    await check();
    const changes: Row[] = [rows[5], rows[20_000], rows[N - 1]].map((x): Row => ({ ...x, q: 7, s: 9 })).concat([{ id: 5_000_000, r: -3, q: 1, ts: null, d: 19_500, s: null }]);
    const m = await t.merge([toBatch(changes)], { keys: ['id'] });
    expect([m.updated, m.inserted]).toEqual([3, 1]);
    for (const c of changes) model.set(c.id, c);
    await check();
  });
});
