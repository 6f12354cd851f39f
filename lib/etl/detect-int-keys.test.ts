import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScratchDatabase } from '../testing/pg';
import { queryBranch } from '../testing/branch-fixtures';
import { createPostgresSource, type BranchSource } from '../sources';
import * as arrow from 'apache-arrow';
import { aggregateSql, deletedIntKeys, keyGrid, lakeIntKeys, type IntKeySource } from './detect-int-keys';
import { keyWindows, unpackKeys } from './deleted-keys-by-list';

// Deleted integer keys against a real PostgreSQL source, by both roads: the key list a PostgreSQL
// source packs (windowed; a bitmap or, for sparse keys, a sort), and the range sums an Oracle source
// computes — Oracle's SQL (FLOOR, MOD) runs on PostgreSQL unchanged, so that road is checked against
// a real server too: the source's aggregate and the lake side's sums must agree range by range, a
// range with one delete is settled by its sums, anything else is read key by key. Either way the
// answer is the exact set difference.
let scratch: { url: string; drop(): Promise<void> };
let source: BranchSource;
const sqls: string[] = [];

const src = (table: string, dialect: IntKeySource['dialect'] = 'oracle', key = 'id'): IntKeySource => ({
  // Oracle's NUMBER does not overflow where PostgreSQL's int4 does (the int4 table at -2^31): that road's SQL gets an int8 key here
  dialect, from: `d.${table} t`, key: dialect === 'oracle' ? `(t."${key}"::int8)` : `t."${key}"`,
  run: (q) => { sqls.push(q); return source.textQuery!(q); },
  ...(dialect === 'postgres' ? { runBytes: (q: string) => { sqls.push(q); return source.bytesQuery!(q); } } : {}),
});
const sorted = (a: number[]) => [...a].sort((x, y) => x - y);

beforeAll(async () => {
  scratch = await createScratchDatabase('intkeys');
  source = createPostgresSource({ branch: 'b0', connectionString: scratch.url, poolSize: 2 });
  await queryBranch(scratch.url, `CREATE SCHEMA d;
    CREATE TABLE d.big (id int8 PRIMARY KEY); INSERT INTO d.big SELECT g * 3 - 600 FROM generate_series(1, 5000) g;
    CREATE TABLE d.swap (id int8 PRIMARY KEY); INSERT INTO d.swap SELECT g * 3 FROM generate_series(1, 1000) g;
    CREATE TABLE d.small (id int4 PRIMARY KEY); INSERT INTO d.small SELECT g FROM generate_series(-2147483648, -2147483648 + 999) g;`);
});
afterAll(async () => {
  await source?.close();
  await scratch?.drop();
});

const roads = ['postgres', 'oracle'] as const;

describe('deleted integer keys: the range road (real PostgreSQL running the Oracle SQL)', () => {
  it('deletes over several ranges: single deletes settled by the sums, a range with two deletes and one with an insert beside a delete read key by key', async () => {
    const lake = Float64Array.from({ length: 5000 }, (_, i) => (i + 1) * 3 - 600); // -597 … 14400, every third key
    const grid = keyGrid(-597, 14400, 5000)!; // 79 ranges of ~64 keys (width 190)
    // single deletes in far-apart ranges; two deletes in one range; one range with a delete and an
    // insert between lake keys (count equal, sums differ); inserts above the lake's largest key
    const single = [-597, 3000, 9000, 14400];
    const double = [6003, 6006];
    const swapped = 12_003; // and 12_004 inserted: same range, same count
    await queryBranch(scratch.url, `DELETE FROM d.big WHERE id IN (${[...single, ...double, swapped].join(',')});
      INSERT INTO d.big VALUES (12004), (20000), (20003)`);
    sqls.length = 0;
    const r = (await deletedIntKeys(src('big'), Promise.resolve(lake), grid))!;
    expect(sorted(r.keys)).toEqual(sorted([...single, ...double, swapped]));
    expect(r.differing).toBe(single.length + 2); // the digest agrees with SQL's: untouched ranges match
    // only the two ranges the sums cannot settle are read key by key (~64 keys each), in one query
    expect(r.probed).toBeGreaterThan(100);
    expect(r.probed).toBeLessThanOrEqual(130);
    expect(sqls).toHaveLength(2);
    expect(sqls[1]).toMatch(/BETWEEN -?\d+ AND -?\d+ OR .* BETWEEN/);
    expect(r.sourceKeys).toBe(5000 - 7 + 1); // keys within the lake's range only
  });

  it('two deletes and two inserts in one range keeping its count and offset sum: the digest sum catches them; so does the key list', async () => {
    const keys = Float64Array.from({ length: 1000 }, (_, i) => (i + 1) * 3); // 3 … 3000
    // 303 + 309 = 304 + 308: the range's count and offset sum are unchanged, only the digest differs
    await queryBranch(scratch.url, `DELETE FROM d.swap WHERE id IN (303, 309); INSERT INTO d.swap VALUES (304), (308)`);
    const grid = keyGrid(3, 3000, 1000)!;
    for (const lake of [keys, { keys }]) {
      const r = (await deletedIntKeys(src('swap'), lake, grid))!;
      expect(sorted(r.keys)).toEqual([303, 309]);
      expect(r.differing).toBe(1);
    }
    expect(sorted((await deletedIntKeys(src('swap', 'postgres'), keys, grid))!.keys)).toEqual([303, 309]);
  });

  it.each(roads)('%s: a range emptied at the source, a lake key held twice, a grid from manifests that misses a key', async (dialect) => {
    await queryBranch(scratch.url, `DELETE FROM d.small WHERE id BETWEEN -2147483648 + 100 AND -2147483648 + 199`);
    const base = -2147483648;
    const keys = Array.from({ length: 1000 }, (_, i) => base + i);
    keys.push(base + 500); // held twice in the lake, once at the source: not a delete
    const lake = Float64Array.from(keys);
    // a stale grid (its max below the lake's largest key): cut again from the keys
    const r = (await deletedIntKeys(src('small', dialect), lake, keyGrid(base, base + 900, 900)))!;
    expect(sorted(r.keys)).toEqual(Array.from({ length: 100 }, (_, i) => base + 100 + i));
    const again = (await deletedIntKeys(src('small', dialect), lake, null))!;
    expect(sorted(again.keys)).toEqual(sorted(r.keys));
  });

  it.each(roads)('%s: nothing deleted: one query, no key read; an empty lake: no query', async (dialect) => {
    await queryBranch(scratch.url, `CREATE TABLE IF NOT EXISTS d.same (id int8 PRIMARY KEY); INSERT INTO d.same SELECT g * 7 FROM generate_series(1, 3000) g ON CONFLICT DO NOTHING`);
    sqls.length = 0;
    const lake = Float64Array.from({ length: 3000 }, (_, i) => (i + 1) * 7);
    const r = (await deletedIntKeys(src('same', dialect), lake, keyGrid(7, 21000, 3000)))!;
    expect(r).toMatchObject({ keys: [], differing: 0, probed: 0, sourceKeys: 3000 });
    expect(sqls).toHaveLength(1);
    sqls.length = 0;
    expect(await deletedIntKeys(src('same', dialect), new Float64Array(0), null)).toMatchObject({ keys: [] });
    expect(sqls).toEqual([]);
    expect(await deletedIntKeys(src('same', dialect), null, null)).toBeNull(); // keys beyond ±2^53: the hashed road
  });
});

describe('deleted integer keys: the key-list road (PostgreSQL)', () => {
  it('deletes in several windows of a table too large for one (windows cut from the manifests\' row count), one query a window', async () => {
    await queryBranch(scratch.url, `CREATE TABLE d.wide (id int8 PRIMARY KEY); INSERT INTO d.wide SELECT g * 5 - 1000 FROM generate_series(1, 8000) g`);
    const lake = Float64Array.from({ length: 8000 }, (_, i) => (i + 1) * 5 - 1000);
    const gone = [-995, 5, 10_000, 19_995, 38_995, 38_990];
    await queryBranch(scratch.url, `DELETE FROM d.wide WHERE id IN (${gone.join(',')}); INSERT INTO d.wide VALUES (7), (50000)`);
    // the manifests count 3.5 million rows (most of them deleted since): 4 windows of the key range
    const grid = { ...keyGrid(-995, 39_000, 8000)!, rows: 3_500_000 };
    expect(keyWindows(grid.min, grid.max, grid.rows)).toHaveLength(4);
    sqls.length = 0;
    const r = (await deletedIntKeys(src('wide', 'postgres'), lake, grid))!;
    expect(sorted(r.keys)).toEqual(sorted(gone));
    expect(r).toMatchObject({ windows: 4, sourceKeys: 8000 - gone.length + 1 }); // 7 is inside the range, 50000 above it
    expect(sqls).toHaveLength(4);
    expect(sqls.every((q) => /^SELECT string_agg\(int8send\(t\."id"::int8\), ''::bytea\) AS k .* BETWEEN -?\d+ AND -?\d+$/.test(q))).toBe(true);
  });

  it('a table of one window is read whole (no key condition): keys below and above the lake\'s range are new rows, not counted', async () => {
    await queryBranch(scratch.url, `CREATE TABLE d.whole (id int8 PRIMARY KEY); INSERT INTO d.whole SELECT g FROM generate_series(1, 300) g;
      DELETE FROM d.whole WHERE id IN (1, 150, 300); INSERT INTO d.whole VALUES (-5), (0), (301), (9000000000)`);
    const lake = Float64Array.from({ length: 300 }, (_, i) => i + 1);
    for (const grid of [keyGrid(1, 300, 300), null]) {
      sqls.length = 0;
      const r = (await deletedIntKeys(src('whole', 'postgres'), lake, grid))!;
      expect(sorted(r.keys)).toEqual([1, 150, 300]);
      expect(r).toMatchObject({ windows: 1, sourceKeys: 297 });
      expect(sqls).toEqual(['SELECT string_agg(int8send(t."id"::int8), \'\'::bytea) AS k FROM d.whole t']);
    }
  });

  it('bytesQuery hands back a bytea\'s bytes as stored (00 and FF, megabytes in one value), null for NULL or no row', async () => {
    const b = await source.bytesQuery!(`SELECT '\\x00ff7f80'::bytea || decode(repeat('ab', 3000000), 'hex') AS k`);
    expect(b!.length).toBe(3_000_004);
    expect([...b!.subarray(0, 6)]).toEqual([0, 255, 127, 128, 0xab, 0xab]);
    expect(b!.subarray(4).every((x) => x === 0xab)).toBe(true);
    expect(await source.bytesQuery!(`SELECT NULL::bytea AS k`)).toBeNull();
    expect(await source.bytesQuery!(`SELECT '\\x01'::bytea AS k WHERE false`)).toBeNull();
    expect(await source.bytesQuery!(`SELECT ''::bytea AS k`)).toEqual(Buffer.alloc(0));
    // an aggregate over no rows is NULL: no keys
    expect(await source.bytesQuery!(`SELECT string_agg(int8send(v), ''::bytea) AS k FROM unnest('{}'::int8[]) v`)).toBeNull();
  });

  it('sparse keys (a span too wide for a bitmap) are compared by sorting; keys near ±2^53 unpack exactly', async () => {
    const edge = [-(2 ** 53 - 1), -4_294_967_297, -1, 0, 4_294_967_296, 2 ** 53 - 1];
    const packed = await source.bytesQuery!(`SELECT string_agg(int8send(v), ''::bytea ORDER BY v) AS k FROM unnest('{${edge.join(',')}}'::int8[]) v`);
    expect([...unpackKeys(packed)]).toEqual(edge);
    const keys = [-(2 ** 51), -4_294_967_297, -1, 0, 4_294_967_296, 123_456_789_012, 2 ** 51];
    await queryBranch(scratch.url, `CREATE TABLE d.sparse (id int8 PRIMARY KEY); INSERT INTO d.sparse VALUES (${keys.join('),(')})`);
    await queryBranch(scratch.url, `DELETE FROM d.sparse WHERE id IN (-1, 123456789012)`);
    const lake = Float64Array.from([...keys, 0]); // 0 live twice in the lake: not a delete
    const r = (await deletedIntKeys(src('sparse', 'postgres'), lake, null))!;
    expect(sorted(r.keys)).toEqual([-1, 123_456_789_012]);
    expect(r.sourceKeys).toBe(5);
  });

  it('the comparison\'s queries run without a parallel plan (serial), other text queries as the server plans them', async () => {
    const setting = async (opts?: { serial?: boolean }) => (await source.textQuery!(`SELECT current_setting('max_parallel_workers_per_gather') AS v`, undefined, opts))[0].v;
    expect(await setting({ serial: true })).toBe('0');
    const bytesSetting = async (opts?: { serial?: boolean }) => (await source.bytesQuery!(`SELECT convert_to(current_setting('max_parallel_workers_per_gather'), 'UTF8') AS v`, undefined, opts))!.toString();
    expect(await bytesSetting({ serial: true })).toBe('0');
    expect(await bytesSetting()).toBe(await setting());
    expect(await setting()).not.toBe('0');
    expect(await setting()).toBe((await source.textQuery!(`SHOW max_parallel_workers_per_gather`))[0].max_parallel_workers_per_gather);
  });

  it('a deleted key live twice in the lake is named once; a window the source has emptied is all gone', async () => {
    await queryBranch(scratch.url, `CREATE TABLE d.twice (id int4 PRIMARY KEY); INSERT INTO d.twice SELECT g FROM generate_series(1, 100) g; DELETE FROM d.twice WHERE id = 50 OR id > 90`);
    const lake = Float64Array.from([...Array.from({ length: 100 }, (_, i) => i + 1), 50, 95]);
    const r = (await deletedIntKeys(src('twice', 'postgres'), lake, null))!;
    expect(sorted(r.keys)).toEqual([50, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100]);
  });

  it('lakeIntKeys: int64 keys exact to ±(2^53 − 1), nulls skipped; a key beyond is refused (null: the hashed road)', async () => {
    const vals = [0n, 1n, -1n, 4294967296n, -4294967297n, 2n ** 53n - 1n, -(2n ** 53n - 1n), 123456789012n];
    const batches = async function* (v: (bigint | null)[]): AsyncGenerator<arrow.RecordBatch> { yield* new arrow.Table({ K: arrow.vectorFromArray(v, new arrow.Int64()) }).batches; };
    expect([...(await lakeIntKeys(batches([...vals, null]), 'K', null))!]).toEqual(vals.map(Number));
    expect(await lakeIntKeys(batches([1n, 2n ** 53n]), 'K', null)).toBeNull();
    expect(await lakeIntKeys(batches([-(2n ** 60n), 1n]), 'K', null)).toBeNull();
  });

  it('Oracle: the same aggregate in Oracle SQL (FLOOR, MOD), the key offset kept exact', () => {
    const q = aggregateSql({ from: 'S.T t', key: 't."ID"' }, { min: -5, max: 100, width: 8, rows: 100 });
    expect(q).toContain('FLOOR((t."ID" - (-5)) / 8)');
    expect(q).toContain('SUM(MOD((t."ID" - (-5)), 8))');
    expect(q).toMatch(/SUM\(MOD\(MOD\(MOD\(\(t\."ID" - \(-5\)\), 67108859\)/);
    expect(q).toContain('WHERE t."ID" BETWEEN -5 AND 100 GROUP BY FLOOR(');
  });
});
