import { beforeAll, describe, expect, it } from 'vitest';
import type { TestDatabase } from '../testing/pg';
import { queryBranch } from '../testing/branch-fixtures';
import type { Lake } from '../lake';
import { parseTablesConfig } from '../config/tables-json';
import { chdbRows, icebirdRows, norm } from './test-lake-readers';
import { branchSql, etlRunner, useEtlLake } from '../testing/etl-lake-fixture';

// tables.json `deletes`: rows deleted at two real Postgres branches reach the lake on INCREMENTAL
// (hard: gone; soft: stamped in _deleted_at), counted per unit; `ignore` keeps them (the default).
// `visits` has a composite key with a sub-second timestamp: deleted keys must round-trip exactly.
let db: TestDatabase;
let lake: Lake;
const tables = parseTablesConfig([
  { table: 'shop.items', unique_key: 'item_id', cdc_column: 'updated_at', category: 'masters', deletes: 'detect' },
  { table: 'shop.visits', unique_key: ['visit_id', 'visit_ts'], cdc_column: 'updated_at', category: 'masters', deletes: 'detect', soft_delete: true },
  { table: 'shop.notes', unique_key: 'note_id', cdc_column: 'updated_at', category: 'masters' },
]);

async function seed(url: string, i: number): Promise<void> {
  await queryBranch(url, `
    CREATE SCHEMA shop;
    CREATE TABLE shop.items (item_id int PRIMARY KEY, name text, updated_at timestamp(6) NOT NULL);
    INSERT INTO shop.items SELECT g, 'item ' || g || '@' || ${i}, '2025-03-01 10:00:00'::timestamp + g * interval '1 minute' FROM generate_series(1, 300) g;
    CREATE TABLE shop.visits (visit_id int, visit_ts timestamp(6), note text, updated_at timestamp(6) NOT NULL, PRIMARY KEY (visit_id, visit_ts));
    -- two visits per id, 0.123456 s and 0.654321 s past the minute: a key cut to the second or millisecond matches neither
    INSERT INTO shop.visits SELECT g, '2025-03-01 08:00:00.123456'::timestamp + g * interval '1 minute', 'v' || g, '2025-03-01 09:00:00' FROM generate_series(1, 100) g;
    INSERT INTO shop.visits SELECT g, '2025-03-01 08:00:00.654321'::timestamp + g * interval '1 minute', 'w' || g, '2025-03-01 09:00:00' FROM generate_series(1, 100) g;
    CREATE TABLE shop.notes (note_id int PRIMARY KEY, body text, updated_at timestamp(6) NOT NULL);
    INSERT INTO shop.notes SELECT g, 'n' || g, '2025-03-01 09:00:00' FROM generate_series(1, 50) g;`);
}

/** Live (key → text) rows of a lake table on one branch as ClickHouse reads it. */
function lakeKeys(table: string, expr: string, where = 'true'): Promise<string[]> {
  return lake.loadTable(`etl.${table}`).then((t) => chdbRows(t, (f) => `SELECT BRANCH_ID AS b, ${expr} AS k FROM ${f} WHERE ${where}`).map((r) => `${r.b}:${norm(r.k)}`).sort());
}

const fx = useEtlLake({ name: 'delbr', count: 2, seed: (url, i) => seed(url, i) });
const run = etlRunner(fx, { namespace: 'etl', tables, settings: { fetchBatchSize: 100, stagingRowsPerFile: 150 } });
const sql = branchSql(fx);
beforeAll(() => { ({ db, lake } = fx); });

describe('deletes reach the lake', () => {
  it('config: soft_delete needs deletes: detect; a bad deletes value names the field', () => {
    expect(() => parseTablesConfig([{ table: 'a.b', unique_key: 'id', soft_delete: true }])).toThrow(/entry 0 \(a\.b\): field soft_delete: needs deletes: "detect"/);
    expect(() => parseTablesConfig([{ table: 'a.b', unique_key: 'id', deletes: 'purge' }])).toThrow(/field deletes: must be ignore or detect/);
    expect(parseTablesConfig([{ table: 'a.b', unique_key: 'id' }])[0].deletes).toEqual({ mode: 'ignore', soft: false });
  });

  it('INCREMENTAL with updates, inserts and deletes: hard deletes gone, soft deletes stamped, ignore keeps them; counted per unit', async () => {
    const r0 = await run('INITIAL');
    expect(r0.units.filter((u) => u.status !== 'SUCCESS').map((u) => `${u.table}@${u.branch}: ${u.error}`)).toEqual([]);
    // b0: 3 items deleted, 2 updated, 1 inserted; 2 visits deleted (one key of a pair: the other stays), one notes row deleted
    await sql(0, `DELETE FROM shop.items WHERE item_id IN (5, 77, 300);
      UPDATE shop.items SET name = name || ' (upd)', updated_at = '2025-06-01 00:00:00' WHERE item_id IN (6, 7);
      INSERT INTO shop.items VALUES (301, 'new', '2025-06-01 00:00:00');
      DELETE FROM shop.visits WHERE (visit_id = 10 AND visit_ts = '2025-03-01 08:10:00.123456') OR (visit_id = 20 AND visit_ts = '2025-03-01 08:20:00.654321');
      DELETE FROM shop.notes WHERE note_id = 1`);
    // b1: one item deleted and the same key inserted again in one INCREMENTAL is an update, not a delete
    await sql(1, `DELETE FROM shop.items WHERE item_id = 9; INSERT INTO shop.items VALUES (9, 'again', '2025-06-01 00:00:00'); DELETE FROM shop.items WHERE item_id = 10`);
    const r1 = await run('INCREMENTAL', 1);
    expect(r1.units.filter((u) => u.status !== 'SUCCESS').map((u) => `${u.table}@${u.branch}: ${u.error}`)).toEqual([]);
    const unit = (t: string, b: string) => r1.units.find((u) => u.table === t && u.branch === b)!;
    expect(unit('items', 'b0').rowsDeleted).toBe(3);
    expect(unit('items', 'b1').rowsDeleted).toBe(1);
    expect(unit('visits', 'b0').rowsDeleted).toBe(2);
    expect(unit('visits', 'b1').rowsDeleted).toBe(0);
    expect(unit('notes', 'b0').rowsDeleted).toBeUndefined();

    // items: the lake equals the sources, key by key (ClickHouse and icebird)
    const want: string[] = [];
    for (let i = 0; i < 2; i++) for (const x of await sql(i, 'SELECT item_id, name FROM shop.items')) want.push(`b${i}:${x.item_id}|${x.name}`);
    want.sort();
    expect(await lakeKeys('items', `concat(toString(item_id), '|', name)`)).toEqual(want);
    const ib = (await icebirdRows(await lake.loadTable('etl.items'))).map((x) => `${x.BRANCH_ID}:${x.item_id}|${x.name}`).sort();
    expect(ib).toEqual(want);

    // visits (soft): every row kept; exactly the two deleted keys stamped with the load time
    const stamped = await lakeKeys('visits', `concat(toString(visit_id), ' ', toString(visit_ts))`, '_deleted_at IS NOT NULL');
    expect(stamped).toEqual(['b0:10 2025-03-01 08:10:00.123456', 'b0:20 2025-03-01 08:20:00.654321']);
    expect((await lakeKeys('visits', 'visit_id')).length).toBe(400);
    const t = await lake.loadTable('etl.visits');
    const ibv = await icebirdRows(t);
    expect(ibv.filter((x) => x._deleted_at !== null && x._deleted_at !== undefined).map((x) => `${x.BRANCH_ID}:${x.visit_id}:${x.note}`).sort()).toEqual(['b0:10:v10', 'b0:20:w20']);
    // the sibling keys (same id, other fraction) are untouched
    expect(await lakeKeys('visits', `toString(visit_ts)`, `visit_id IN (10, 20) AND BRANCH_ID = 'b0' AND _deleted_at IS NULL`)).toEqual(['b0:2025-03-01 08:10:00.654321', 'b0:2025-03-01 08:20:00.123456']);

    // notes (deletes: ignore, the default): the deleted row stays in the lake
    expect(await lakeKeys('notes', 'note_id', `note_id = 1`)).toEqual(['b0:1', 'b1:1']);

    // etl_run_log counts them per unit
    const log = await db.pool.query(`SELECT table_name, branch_id, rows_deleted::int AS d FROM etl_meta.etl_run_log WHERE pipeline_run_id = $1 ORDER BY 1, 2`, [r1.runId]);
    expect(log.rows.map((x) => `${x.table_name}@${x.branch_id}=${x.d}`)).toEqual(['items@b0=3', 'items@b1=1', 'notes@b0=0', 'notes@b1=0', 'visits@b0=2', 'visits@b1=0']);
  });

  it('a later INCREMENTAL with nothing deleted deletes nothing (soft-deleted rows are not stamped again)', async () => {
    const before = await lakeKeys('visits', `concat(toString(visit_id), ' ', toString(_deleted_at))`, '_deleted_at IS NOT NULL');
    const r = await run('INCREMENTAL', 2);
    expect(r.units.filter((u) => u.status !== 'SUCCESS')).toEqual([]);
    expect(r.units.filter((u) => u.rowsDeleted).map((u) => `${u.table}@${u.branch}`)).toEqual([]);
    expect(await lakeKeys('visits', `concat(toString(visit_id), ' ', toString(_deleted_at))`, '_deleted_at IS NOT NULL')).toEqual(before);
  });

  it('a soft-deleted key inserted again at the source comes back live', async () => {
    await sql(0, `INSERT INTO shop.visits VALUES (10, '2025-03-01 08:10:00.123456', 'back', '2025-07-01 00:00:00')`);
    const r = await run('INCREMENTAL', 3);
    expect(r.units.filter((u) => u.status !== 'SUCCESS')).toEqual([]);
    expect(await lakeKeys('visits', `concat(note, ' ', toString(isNull(_deleted_at)))`, `visit_id = 10 AND BRANCH_ID = 'b0' AND visit_ts = '2025-03-01 08:10:00.123456'`)).toEqual(['b0:back 1']);
  });
});
