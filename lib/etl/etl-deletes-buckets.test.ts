import fs from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TestDatabase } from '../testing/pg';
import { branchSql, etlRunner, useEtlLake } from '../testing/etl-lake-fixture';
import { queryBranch } from '../testing/branch-fixtures';
import type { Lake } from '../lake';
import { parseTablesConfig } from '../config/tables-json';
import { keyFileCache } from './key-file-cache';
import { IntKeyFileCache, intKeyFileCache } from './int-key-files';
import { lakeIntKeys } from './detect-int-keys';
import { BRANCH_ID } from '../config/lake-columns';
import { lakeTarget } from './lake-target';
import { chdbRows, icebirdRows, norm } from './test-lake-readers';

// tables.json `deletes: detect` on the bucketed comparison (detect-int-keys.ts for one integer key,
// the reconciler's hashed buckets otherwise): deletes spread over many key ranges / buckets, a range
// with an insert beside a delete (equal counts, different sums), integer, text and composite keys
// with a sub-second timestamp, over two real Postgres branches; the lake is read back by ClickHouse
// and icebird and must equal the sources row by row.
let db: TestDatabase;
let lake: Lake;
const tables = parseTablesConfig([
  { table: 'app.orders', unique_key: 'order_id', cdc_column: 'updated_at', category: 'masters', deletes: 'detect' },
  { table: 'app.tags', unique_key: 'tag', cdc_column: 'updated_at', category: 'masters', deletes: 'detect' },
  { table: 'app.events', unique_key: ['event_id', 'event_ts'], cdc_column: 'updated_at', category: 'masters', deletes: 'detect' },
  { table: 'app.soft', unique_key: 'id', cdc_column: 'updated_at', category: 'masters', deletes: 'detect', soft_delete: true },
]);

async function seed(url: string, i: number): Promise<void> {
  // order ids step 2 (room for an insert between two lake keys); 3,000 rows: ~47 key ranges
  await queryBranch(url, `
    CREATE SCHEMA app;
    CREATE TABLE app.orders (order_id int8 PRIMARY KEY, amount numeric(10,2), updated_at timestamp(6) NOT NULL);
    INSERT INTO app.orders SELECT g * 2, g * 1.5 + ${i}, '2025-03-01 10:00:00' FROM generate_series(1, 3000) g;
    CREATE TABLE app.tags (tag text PRIMARY KEY, n int, updated_at timestamp(6) NOT NULL);
    INSERT INTO app.tags SELECT 'tag-' || lpad(g::text, 5, '0') || CASE WHEN g % 3 = 0 THEN ' é' ELSE '' END, g, '2025-03-01 10:00:00' FROM generate_series(1, 1500) g;
    CREATE TABLE app.events (event_id int, event_ts timestamp(6), v text, updated_at timestamp(6) NOT NULL, PRIMARY KEY (event_id, event_ts));
    CREATE TABLE app.soft (id int PRIMARY KEY, v text, updated_at timestamp(6) NOT NULL);
    INSERT INTO app.soft SELECT g, 's' || g, '2025-03-01 10:00:00' FROM generate_series(1, 500) g;
    INSERT INTO app.events SELECT g % 400, '2025-03-01 08:00:00.000001'::timestamp + g * interval '1.000123 second', 'e' || g, '2025-03-01 10:00:00' FROM generate_series(1, 1200) g;`);
}

const names = async (table: string) => new Map((await lake.loadTable(`etl.${table}`)).arrowSchema().fields.map((f) => [f.name.toLowerCase(), f.name]));

/** `branch:key|value` rows of the lake through ClickHouse and icebird (live rows). */
async function lakeRows(table: string, cols: string[]): Promise<{ ch: string[]; ib: string[] }> {
  const n = await names(table);
  const t = await lake.loadTable(`etl.${table}`);
  const expr = cols.map((c) => `toString(${n.get(c)})`).join(`, '|', `);
  const ch = chdbRows(t, (f) => `SELECT BRANCH_ID AS b, concat(${expr}) AS k FROM ${f}`).map((r) => `${r.b}:${r.k}`).sort();
  const ib = (await icebirdRows(t)).map((r) => `${r.BRANCH_ID}:${cols.map((c) => norm(r[n.get(c)!])).join('|')}`).sort();
  return { ch: ch.map((x) => { const [b, ...rest] = x.split(':'); return `${b}:${rest.join(':').split('|').map(norm).join('|')}`; }).sort(), ib };
}

async function sourceRows(table: string, cols: string[]): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < 2; i++) {
    const sel = cols.map((c) => (c.endsWith('_ts') ? `to_char(${c}, 'YYYY-MM-DD HH24:MI:SS.US')` : `${c}::text`)).join(` || '|' || `);
    for (const r of await sql(i, `SELECT ${sel} AS k FROM app.${table}`)) out.push(`b${i}:${String(r.k).split('|').map(norm).join('|')}`);
  }
  return out.sort();
}

const fx = useEtlLake({ name: 'delbk', count: 2, seed: (url, i) => seed(url, i) });
const run = etlRunner(fx, { namespace: 'etl', tables, settings: { fetchBatchSize: 500, stagingRowsPerFile: 700 } });
const sql = branchSql(fx);
/** The data files of etl.orders the INITIAL wrote (one load's insert_at each). */
let initialFiles: string[] = [];
beforeAll(() => { ({ db, lake } = fx); });

describe('deletes: detect over key ranges and hashed buckets', () => {
  it('deletes spread over many ranges, a range with an insert beside a delete, integer / text / composite keys: the lake equals the sources', async () => {
    const r0 = await run('INITIAL');
    expect(r0.units.filter((u) => u.status !== 'SUCCESS').map((u) => `${u.table}@${u.branch}: ${u.error}`)).toEqual([]);
    initialFiles = (await (await lake.loadTable('etl.orders')).files()).filter((f) => f.content === 'data').map((f) => f.path);
    const NEW = `'2025-06-01 00:00:00'`;
    // b0: 9 orders deleted over the whole key space, two of them in one range; key 1001 inserted between
    // 1000 and 1002 (its range keeps its count: 1000 deleted there); 2 updated; one new order at the end
    await sql(0, `DELETE FROM app.orders WHERE order_id IN (2, 200, 998, 1000, 2402, 2404, 3600, 5000, 6000);
      INSERT INTO app.orders VALUES (1001, 1, ${NEW}), (6002, 2, ${NEW});
      UPDATE app.orders SET amount = amount + 1, updated_at = ${NEW} WHERE order_id IN (4, 4000);
      DELETE FROM app.tags WHERE tag IN ('tag-00001', 'tag-00500', 'tag-00999 é', 'tag-01500 é');
      INSERT INTO app.tags VALUES ('tag-00500a', 1, ${NEW});
      DELETE FROM app.events WHERE v IN ('e1', 'e401', 'e777', 'e1200');
      INSERT INTO app.events VALUES (1, '2025-03-01 08:00:01.000125', 'new', ${NEW});
      DELETE FROM app.soft WHERE id IN (3, 250, 499); UPDATE app.soft SET v = 'upd', updated_at = ${NEW} WHERE id IN (4, 251); INSERT INTO app.soft VALUES (501, 'new', ${NEW})`);
    // b1: one delete + one insert of equal count in the same range and the same bucket of text keys; nothing else
    await sql(1, `DELETE FROM app.orders WHERE order_id = 3000; INSERT INTO app.orders VALUES (3001, 9, ${NEW});
      DELETE FROM app.tags WHERE tag = 'tag-00700'; INSERT INTO app.tags VALUES ('tag-00700 ', 7, ${NEW})`);
    const r1 = await run('INCREMENTAL', 1);
    expect(r1.units.filter((u) => u.status !== 'SUCCESS').map((u) => `${u.table}@${u.branch}: ${u.error}`)).toEqual([]);
    const deleted = Object.fromEntries(r1.units.map((u) => [`${u.table}@${u.branch}`, u.rowsDeleted]));
    expect(deleted).toEqual({ 'orders@b0': 9, 'orders@b1': 1, 'tags@b0': 4, 'tags@b1': 1, 'events@b0': 4, 'events@b1': 0, 'soft@b0': 3, 'soft@b1': 0 });
    // soft: updates and deletes of one partition in one commit; the deleted rows kept, stamped, with their values
    const n = await names('soft');
    const softRows = (where: string) => lake.loadTable('etl.soft').then((t) => chdbRows(t, (f) => `SELECT BRANCH_ID AS b, concat(toString(${n.get('id')}), '|', ${n.get('v')}) AS k FROM ${f} WHERE ${where}`).map((r) => `${r.b}:${r.k}`).sort());
    expect(await softRows('_deleted_at IS NOT NULL')).toEqual(['b0:250|s250', 'b0:3|s3', 'b0:499|s499']);
    expect(await softRows('_deleted_at IS NULL')).toEqual(await sourceRows('soft', ['id', 'v']));

    for (const [table, cols] of [['orders', ['order_id', 'amount']], ['tags', ['tag', 'n']], ['events', ['event_id', 'event_ts', 'v']]] as const) {
      const want = await sourceRows(table, [...cols]);
      const got = await lakeRows(table, [...cols]);
      expect(got.ch, `${table} via ClickHouse`).toEqual(want);
      // icebird hands timestamps over as Date (milliseconds): its rows are compared without them (ClickHouse checks the microseconds)
      const plain = cols.filter((c) => !c.endsWith('_ts'));
      expect((await lakeRows(table, plain)).ib, `${table} via icebird`).toEqual(await sourceRows(table, plain));
    }
    const log = await db.pool.query(`SELECT table_name, branch_id, rows_deleted::int AS d FROM etl_meta.etl_run_log WHERE pipeline_run_id = $1 AND rows_deleted > 0 ORDER BY 1, 2`, [r1.runId]);
    expect(log.rows.map((x) => `${x.table_name}@${x.branch_id}=${x.d}`)).toEqual(['events@b0=4', 'orders@b0=9', 'orders@b1=1', 'soft@b0=3', 'tags@b0=4', 'tags@b1=1']);
  });

  it('the next INCREMENTAL (lake files now with position deletes, their key columns taken from the process cache) finds only the new deletes', async () => {
    expect(keyFileCache.size).toBeGreaterThan(0); // the first comparison kept the files' key columns (text, composite keys)
    expect(intKeyFileCache.size).toBeGreaterThan(0); // and the integer key's arrays and delete positions by file
    await sql(1, `DELETE FROM app.orders WHERE order_id IN (10, 5998); DELETE FROM app.events WHERE v = 'e5'`);
    const r = await run('INCREMENTAL', 2);
    expect(r.units.filter((u) => u.status !== 'SUCCESS')).toEqual([]);
    expect(r.units.filter((u) => u.rowsDeleted).map((u) => `${u.table}@${u.branch}=${u.rowsDeleted}`).sort()).toEqual(['events@b1=1', 'orders@b1=2']);
    for (const [table, cols] of [['orders', ['order_id', 'amount']], ['events', ['event_id', 'event_ts', 'v']]] as const) {
      expect((await lakeRows(table, [...cols])).ch, table).toEqual(await sourceRows(table, [...cols]));
    }
  });

  it('a key updated in one run (its row moved out of a cached file by a position delete) and deleted in the next is deleted once; the live keys by file equal the scan\'s', async () => {
    const before = intKeyFileCache.size;
    await sql(0, `UPDATE app.orders SET amount = amount + 2, updated_at = '2025-07-01 00:00:00' WHERE order_id IN (12, 14, 16)`);
    const r1 = await run('INCREMENTAL', 3);
    expect(r1.units.filter((u) => u.status !== 'SUCCESS')).toEqual([]);
    expect(r1.units.filter((u) => u.rowsDeleted).map((u) => `${u.table}@${u.branch}=${u.rowsDeleted}`)).toEqual([]);
    // 12 and 16 now live in the last merge's file, their old rows deleted by position in files cached before;
    // 18 is still in the INITIAL's file (cached since the first comparison)
    await sql(0, `DELETE FROM app.orders WHERE order_id IN (12, 16, 18)`);
    const r2 = await run('INCREMENTAL', 4);
    expect(r2.units.filter((u) => u.status !== 'SUCCESS')).toEqual([]);
    expect(r2.units.filter((u) => u.rowsDeleted).map((u) => `${u.table}@${u.branch}=${u.rowsDeleted}`)).toEqual(['orders@b0=3']);
    expect(intKeyFileCache.size).toBeGreaterThan(before);
    const got = await lakeRows('orders', ['order_id', 'amount']);
    expect(got.ch).toEqual(await sourceRows('orders', ['order_id', 'amount']));
    expect(got.ib).toEqual(await sourceRows('orders', ['order_id', 'amount']));
    // the by-file road (warm and cold) gives exactly the scan's live keys, repeats included
    const target = lakeTarget(lake, { namespace: 'etl' });
    const key = (await names('orders')).get('order_id')!;
    for (const b of ['b0', 'b1']) {
      const scanned = [...(await lakeIntKeys(target.scan('orders', [key], { [BRANCH_ID]: b }), key, null))!].sort((x, y) => x - y);
      expect(scanned.length).toBeGreaterThan(2900);
      for (const cache of [intKeyFileCache, new IntKeyFileCache()]) {
        const byFile = await target.liveIntKeys!('orders', key, { [BRANCH_ID]: b }, cache);
        expect([...byFile!.keys].sort((x, y) => x - y), `${b}`).toEqual(scanned);
      }
    }
  });
  it('the merge of a detect table matches its updates on the key arrays the comparison holds: the files they came from are not opened', async () => {
    const t = await lake.loadTable('etl.orders');
    const key = (await names('orders')).get('order_id')!;
    // the INITIAL's data files, their key columns held by the process, moved away for the run: opening one
    // would fail it (a merge's own files, their insert_at carried from several loads, are read for it)
    const live = new Set((await t.files()).map((f) => f.path));
    const held = initialFiles.filter((p) => live.has(p) && intKeyFileCache.keysOf(key, p)).map((p) => new URL(p).pathname);
    expect(held.length).toBeGreaterThan(4);
    await sql(0, `UPDATE app.orders SET amount = amount + 5, updated_at = '2025-08-01 00:00:00' WHERE order_id IN (20, 3002, 5996); DELETE FROM app.orders WHERE order_id = 22`);
    await sql(1, `UPDATE app.orders SET amount = amount + 5, updated_at = '2025-08-01 00:00:00' WHERE order_id = 40`);
    for (const f of held) fs.renameSync(f, `${f}.away`);
    let r;
    try { r = await run('INCREMENTAL', 5); } finally { for (const f of held) fs.renameSync(`${f}.away`, f); }
    expect(r.units.filter((u) => u.status !== 'SUCCESS').map((u) => `${u.table}@${u.branch}: ${u.error}`)).toEqual([]);
    expect(r.units.filter((u) => u.table === 'orders').map((u) => `${u.branch}: ${u.rows} read, ${u.rowsDeleted} deleted`).sort()).toEqual(['b0: 3 read, 1 deleted', 'b1: 1 read, 0 deleted']);
    const got = await lakeRows('orders', ['order_id', 'amount']);
    expect(got.ch).toEqual(await sourceRows('orders', ['order_id', 'amount']));
    expect(got.ib).toEqual(await sourceRows('orders', ['order_id', 'amount']));
  });
});
