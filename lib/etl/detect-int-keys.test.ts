import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScratchDatabase } from '../testing/pg';
import { queryBranch } from '../testing/branch-fixtures';
import { createPostgresSource, type BranchSource } from '../sources';
import * as arrow from 'apache-arrow';
import { aggregateSql, deletedIntKeys, keyGrid, lakeIntKeys, type IntKeySource } from './detect-int-keys';
import { pgHashInt8 } from './pg-hash-int8';

// Deleted integer keys by key ranges, against a real PostgreSQL source: the source's aggregate and
// the lake side's sums must agree range by range (the digest computed alike in SQL and here), a
// range with one delete is settled by its sums, anything else is read key by key, and the answer
// is always the exact set difference.
let scratch: { url: string; drop(): Promise<void> };
let source: BranchSource;
const sqls: string[] = [];

const src = (table: string, key = 'id'): IntKeySource => ({
  dialect: 'postgres', from: `d.${table} t`, key: `t."${key}"`,
  run: (q) => { sqls.push(q); return source.textQuery!(q); },
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

describe('deleted integer keys by key ranges (real PostgreSQL)', () => {
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
    // only the two ranges the sums cannot settle are read key by key (~64 keys each), in one probe
    expect(r.probed).toBeGreaterThan(100);
    expect(r.probed).toBeLessThanOrEqual(130);
    expect(sqls).toHaveLength(2);
    expect(sqls[1]).toMatch(/unnest\('\{[-\d,]+\}'::int8\[\]\)/);
    expect(r.sourceKeys).toBe(5000 - 7 + 1); // keys within the lake's range only
  });

  it('two deletes and two inserts in one range keeping its count and offset sum: the hash sum catches them, with the lake\'s hashes computed here or taken from the file cache', async () => {
    const keys = Float64Array.from({ length: 1000 }, (_, i) => (i + 1) * 3); // 3 … 3000
    // 303 + 309 = 304 + 308: the range's count and offset sum are unchanged, only hashint8 differs
    await queryBranch(scratch.url, `DELETE FROM d.swap WHERE id IN (303, 309); INSERT INTO d.swap VALUES (304), (308)`);
    const grid = keyGrid(3, 3000, 1000)!;
    for (const lake of [keys, { keys, hashes: Int32Array.from(keys, (k) => pgHashInt8(k)) }]) {
      const r = (await deletedIntKeys(src('swap'), lake, grid))!;
      expect(sorted(r.keys)).toEqual([303, 309]);
      expect(r.differing).toBe(1);
    }
    // a cached hash that is not the key's would show as a difference, never hide one
    const wrong = Int32Array.from(keys, (k) => pgHashInt8(k));
    wrong[500] ^= 1;
    expect((await deletedIntKeys(src('swap'), { keys, hashes: wrong }, grid))!.differing).toBe(2);
  });

  it('a range emptied at the source, a lake key held twice, a grid from manifests that misses a key', async () => {
    await queryBranch(scratch.url, `DELETE FROM d.small WHERE id BETWEEN -2147483648 + 100 AND -2147483648 + 199`);
    const base = -2147483648;
    const keys = Array.from({ length: 1000 }, (_, i) => base + i);
    keys.push(base + 500); // held twice in the lake, once at the source: not a delete
    const lake = Float64Array.from(keys);
    // a stale grid (its max below the lake's largest key): cut again from the keys
    const r = (await deletedIntKeys(src('small'), lake, keyGrid(base, base + 900, 900)))!;
    expect(sorted(r.keys)).toEqual(Array.from({ length: 100 }, (_, i) => base + 100 + i));
    const again = (await deletedIntKeys(src('small'), lake, null))!;
    expect(sorted(again.keys)).toEqual(sorted(r.keys));
  });

  it('nothing deleted: one aggregate, no key read; an empty lake: no query', async () => {
    await queryBranch(scratch.url, `CREATE TABLE d.same (id int8 PRIMARY KEY); INSERT INTO d.same SELECT g * 7 FROM generate_series(1, 3000) g`);
    sqls.length = 0;
    const lake = Float64Array.from({ length: 3000 }, (_, i) => (i + 1) * 7);
    const r = (await deletedIntKeys(src('same'), lake, keyGrid(7, 21000, 3000)))!;
    expect(r).toMatchObject({ keys: [], differing: 0, probed: 0, sourceKeys: 3000 });
    expect(sqls).toHaveLength(1);
    sqls.length = 0;
    expect(await deletedIntKeys(src('same'), new Float64Array(0), null)).toMatchObject({ keys: [] });
    expect(sqls).toEqual([]);
    expect(await deletedIntKeys(src('same'), null, null)).toBeNull(); // keys beyond ±2^53: the hashed road
  });

  it('pgHashInt8 is the server\'s hashint8 (negative, beyond 32 bits, near ±2^53)', async () => {
    const vals = [0, 1, -1, 42, 2147483647, -2147483648, 4294967296, 123456789012, 9007199254740991, -9007199254740991];
    const r = await source.textQuery!(`SELECT v::text AS v, hashint8(v)::text AS h FROM unnest('{${vals.join(',')}}'::int8[]) v`);
    expect(r.map((x) => Number(x.h))).toEqual(vals.map(pgHashInt8));
  });

  it('lakeIntKeys: int64 keys exact to ±(2^53 − 1), nulls skipped; a key beyond is refused (null: the hashed road)', async () => {
    const vals = [0n, 1n, -1n, 4294967296n, -4294967297n, 2n ** 53n - 1n, -(2n ** 53n - 1n), 123456789012n];
    const batches = async function* (v: (bigint | null)[]): AsyncGenerator<arrow.RecordBatch> { yield* new arrow.Table({ K: arrow.vectorFromArray(v, new arrow.Int64()) }).batches; };
    expect([...(await lakeIntKeys(batches([...vals, null]), 'K', null))!]).toEqual(vals.map(Number));
    expect(await lakeIntKeys(batches([1n, 2n ** 53n]), 'K', null)).toBeNull();
    expect(await lakeIntKeys(batches([-(2n ** 60n), 1n]), 'K', null)).toBeNull();
  });

  it('Oracle: the same aggregate in Oracle SQL (FLOOR, MOD), the key offset kept exact', () => {
    const q = aggregateSql({ dialect: 'oracle', from: 'S.T t', key: 't."ID"' }, { min: -5, max: 100, width: 8 });
    expect(q).toContain('FLOOR((t."ID" - (-5)) / 8)');
    expect(q).toContain('SUM(MOD((t."ID" - (-5)), 8))');
    expect(q).toMatch(/SUM\(MOD\(MOD\(MOD\(\(t\."ID" - \(-5\)\), 67108859\)/);
    expect(q).toContain('WHERE t."ID" BETWEEN -5 AND 100 GROUP BY FLOOR(');
  });
});
