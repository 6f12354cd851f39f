import { beforeAll, describe, expect, it } from 'vitest';
import type { Lake } from '../lake';
import { parseTablesConfig } from '../config/tables-json';
import { branchSql, etlRunner, useEtlLake } from '../testing/etl-lake-fixture';
import { queryBranch } from '../testing/branch-fixtures';
import { chdbRows, loadChdb } from './test-lake-readers';

// A PostgreSQL table whose columns were created quoted in mixed case ("Id", "Updated_At"), named
// in tables.json as written: the INITIAL loaded, then every INCREMENTAL failed with `column
// t.updated_at does not exist` (the watermark filter was written unquoted; independent smoke test, session 20).
const tables = parseTablesConfig([{ table: 'MIX.COLS', unique_key: 'Id', cdc_column: 'Updated_At', deletes: 'detect', category: 'masters' }]);
let lake: Lake;
const fx = useEtlLake({
  name: 'mix', count: 1,
  seed: (url) => queryBranch(url, `CREATE SCHEMA mix; CREATE TABLE mix.cols ("Id" int PRIMARY KEY, "ReturnNote" text, "Updated_At" timestamp);
    CREATE INDEX ON mix.cols ("Updated_At"); CREATE TABLE mix."MixedCase" ("Id" int PRIMARY KEY, "Updated_At" timestamp);
    INSERT INTO mix.cols SELECT g, 'n' || g, timestamp '2024-01-01' + g * interval '1 minute' FROM generate_series(1, 50) g`),
});
const run = etlRunner(fx, { namespace: 'mix', tables, settings: { namespace: 'mix' } });
const sql = branchSql(fx);

beforeAll(async () => {
  lake = fx.lake;
  await loadChdb();
  const init = await run('INITIAL');
  expect(init.units.map((u) => [u.status, u.rows])).toEqual([['SUCCESS', 50]]);
});

describe('mixed-case source columns named in any case in tables.json', () => {
  it('INCREMENTAL filters on the quoted CDC column: updates and a delete land', async () => {
    await sql(0, `UPDATE mix.cols SET "ReturnNote" = 'changed', "Updated_At" = timestamp '2025-01-01' WHERE "Id" IN (3, 4); DELETE FROM mix.cols WHERE "Id" = 9`);
    const r = await run('INCREMENTAL');
    expect(r.units.map((u) => [u.status, u.rows, u.rowsDeleted, u.error])).toEqual([['SUCCESS', 2, 1, null]]);
    expect(r.units[0].sql).toMatch(/t\."Updated_At" > \$1::timestamp/);
    const rows = chdbRows(await lake.loadTable('mix.cols'), (from) => `SELECT Id AS id, ReturnNote AS return_note FROM ${from} ORDER BY id`);
    expect(rows).toHaveLength(49);
    expect(rows.filter((x) => x.return_note === 'changed').map((x) => x.id)).toEqual([3, 4]);
    const idle = await run('INCREMENTAL');
    expect(idle.units.map((u) => [u.status, u.rows])).toEqual([['SUCCESS', 0]]);
  });
  it('a table created quoted in mixed case, named unquoted: the failure says PostgreSQL folded the name and how to read it', async () => {
    const named = parseTablesConfig([{ table: 'mix.MixedCase', unique_key: 'Id', cdc_column: 'Updated_At', category: 'masters' }]);
    const r = await etlRunner(fx, { namespace: 'mix', tables: named, settings: { namespace: 'mix' } })('INITIAL');
    expect(r.units[0].status).toBe('FAILED');
    expect(r.units[0].error).toContain(`etl: tables.json entry 'mixed_case' (mix.MixedCase) on branch b0: relation "mix.mixedcase" does not exist (PostgreSQL folds the unquoted mix.MixedCase to mix.mixedcase: a table created quoted in mixed case is read through a subquery entry, "table": "(SELECT * FROM \\"mix\\".\\"MixedCase\\")"`);
  });
});
