import { beforeAll, describe, expect, it } from 'vitest';
import type { Lake } from '../lake';
import { parseTablesConfig } from '../config/tables-json';
import { branchSql, etlRunner, useEtlLake } from '../testing/etl-lake-fixture';
import { queryBranch } from '../testing/branch-fixtures';
import { chdbRows, loadChdb, norm } from './test-lake-readers';
import { silentLogger } from '../log';
import { runDq } from '../dq/run';
import { openPostgresDqSource } from '../dq/source';

// A PostgreSQL `numeric` without precision or scale: the lake column's type is inferred from the
// rows, so each load's rows decide, and a later load may bring more fraction digits, none at all,
// or only integers. Found by an independent smoke test (session 20): decimal(38,2) then a 1e-10
// stopped every later INCREMENTAL ("needs decimal(46,10)"), as did an empty load into decimal(38,21).
const tables = parseTablesConfig([{ table: 'NUM.PRICES', unique_key: 'ID', cdc_column: 'UPDATED_AT', category: 'masters' }]);
let lake: Lake;
const fx = useEtlLake({
  name: 'num', count: 2,
  seed: (url, i) => queryBranch(url, `CREATE SCHEMA num; CREATE TABLE num.prices (id int8 PRIMARY KEY, price numeric, updated_at timestamp);
    INSERT INTO num.prices SELECT g, ${i === 0 ? `round(g * 1.25 + 123456789012, 2)` : 'g * 7'}, timestamp '2024-01-01' + g * interval '1 minute' FROM generate_series(1, 40) g;
    INSERT INTO num.prices VALUES (100, NULL, timestamp '2024-01-02'), (101, 'NaN', timestamp '2024-01-02'), (102, '-Infinity', timestamp '2024-01-02')`),
});
const run = etlRunner(fx, { namespace: 'num', tables, settings: { namespace: 'num' } });
const sql = branchSql(fx);

/** The lake's price column type and every (branch, id, price) as text, read by ClickHouse, against both sources. */
async function expectLakeEqualsSources(): Promise<string> {
  const t = await lake.loadTable('num.prices');
  const got = chdbRows(t, (from) => `SELECT BRANCH_ID b, id, toString(price) p FROM ${from} ORDER BY b, id`).map((r) => `${r.b}|${r.id}|${r.p === null ? null : norm(r.p)}`);
  const want: string[] = [];
  for (const [i, s] of fx.scratch.entries()) {
    const rows = (await queryBranch(s.url, 'SELECT id, price::text p FROM num.prices ORDER BY id')) as { id: string; p: string | null }[];
    // NaN and ±Infinity, which no decimal holds, land as NULL (README)
    for (const r of rows) want.push(`b${i}|${r.id}|${r.p === null || /^(NaN|-?Infinity)$/.test(r.p) ? null : norm(r.p)}`);
  }
  expect(got.sort()).toEqual(want.sort());
  return String(t.arrowSchema().fields.find((f) => f.name === 'price')!.type);
}

beforeAll(async () => {
  lake = fx.lake;
  await loadChdb();
  const init = await run('INITIAL');
  expect(init.units.filter((u) => u.status !== 'SUCCESS')).toEqual([]);
});

describe('an unconstrained numeric column over loads with other digits', () => {
  it('INITIAL over branches with decimals and integers; an empty INCREMENTAL; more fraction digits; integers only: every load lands exactly', async () => {
    expect(await expectLakeEqualsSources()).toBe('Decimal[38e+2]');
    const idle = await run('INCREMENTAL');
    expect(idle.units.map((u) => [u.status, u.rows, u.error])).toEqual([['SUCCESS', 0, null], ['SUCCESS', 0, null]]);
    // ten fraction digits at one branch: the column is rewritten at scale 10, every stored value kept
    await sql(0, `UPDATE num.prices SET price = 0.0000000001, updated_at = timestamp '2025-01-01' WHERE id = 3`);
    const more = await run('INCREMENTAL');
    expect(more.units.map((u) => [u.status, u.rows, u.error])).toEqual([['SUCCESS', 1, null], ['SUCCESS', 0, null]]);
    expect(await expectLakeEqualsSources()).toBe('Decimal[38e+10]');
    // integers only, and an integer into the decimal column: nothing changes type
    await sql(1, `UPDATE num.prices SET price = 42, updated_at = timestamp '2025-01-01' WHERE id = 2`);
    const ints = await run('INCREMENTAL');
    expect(ints.units.map((u) => [u.status, u.error])).toEqual([['SUCCESS', null], ['SUCCESS', null]]);
    expect(await expectLakeEqualsSources()).toBe('Decimal[38e+10]');
  });
  it('a quiet change needing more fraction digits than the column holds: DQ finds it, and its repair says why it cannot write it, rounding nothing', async () => {
    await sql(0, `UPDATE num.prices SET price = 1.000000000001 WHERE id = 7`); // the CDC column not moved
    const dq = (repair: boolean) => runDq({ pool: fx.db.pool, lake, tables, branches: [{ key: 'b0', open: () => openPostgresDqSource({ branch: 'b0', connectionString: fx.scratch[0].url }) }], logger: silentLogger }, { namespace: 'num', write: false, repair });
    const r = (await dq(true)).results[0];
    expect(r.status).toBe('MISMATCH');
    // only the quiet change: NaN and -Infinity, loaded as NULL, compare equal to it
    expect(r.hashMismatch).toBe(1);
    expect(r.repair).toMatchObject({ status: 'FAILED' });
    expect(JSON.stringify(r.repair)).toMatch(/column price has more fraction digits than the lake column's scale 10, and would be rounded/);
    const t = await lake.loadTable('num.prices');
    expect(chdbRows(t, (from) => `SELECT toString(price) p FROM ${from} WHERE BRANCH_ID = 'b0' AND id = 7`)).toEqual([{ p: String(Math.round((7 * 1.25 + 123456789012) * 100) / 100) }]);
  });
});
