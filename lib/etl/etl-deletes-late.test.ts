import { beforeAll, describe, expect, it } from 'vitest';
import type { Lake } from '../lake';
import { AppError } from '../errors';
import { parseTablesConfig } from '../config/tables-json';
import { silentLogger } from '../log';
import { queryBranch } from '../testing/branch-fixtures';
import { branchSql, useEtlLake } from '../testing/etl-lake-fixture';
import { lakeTarget } from './lake-target';
import { runEtl } from './runner';
import { DEFAULT_SETTINGS } from './settings';
import type { BranchHandle } from './run-types';
import { chdbRows, icebirdRows, norm } from './test-lake-readers';

// A unit's `deletes: detect` comparison runs on after its extract while its table's merge writes the
// upserts (RunContext.lateDeletes); the keys join the merge's commit. One branch whose comparison
// fails fails its own unit only: the other branch's deletes land, its watermark does not advance,
// and the next run applies what it missed.
let lake: Lake;
const tables = parseTablesConfig([{ table: 'shop.items', unique_key: 'item_id', cdc_column: 'updated_at', category: 'masters', deletes: 'detect' }]);

const fx = useEtlLake({
  name: 'dellate', count: 2,
  seed: (url, i) => queryBranch(url, `
    CREATE SCHEMA shop;
    CREATE TABLE shop.items (item_id int8 PRIMARY KEY, name text, updated_at timestamp(6) NOT NULL);
    INSERT INTO shop.items SELECT g, 'item ' || g || '@' || ${i}, '2025-03-01 10:00:00'::timestamp + g * interval '1 minute' FROM generate_series(1, 400) g;`),
});
const sql = branchSql(fx);
beforeAll(() => { ({ lake } = fx); });

const run = (mode: 'INITIAL' | 'INCREMENTAL', branches: BranchHandle[] = fx.branches) => runEtl({
  pool: fx.db.pool, target: lakeTarget(fx.lake, { namespace: 'etl' }), branches, tables,
  settings: { ...DEFAULT_SETTINGS, retries: 0, retryDelayMs: 10, fetchBatchSize: 100, mode }, logger: silentLogger, stagingRoot: fx.staging,
});

/** Branch:key:name of every live lake row, by ClickHouse and by icebird (which must agree). */
async function lakeRows(): Promise<string[]> {
  const t = await lake.loadTable('etl.items');
  const ch = chdbRows(t, (f) => `SELECT BRANCH_ID AS b, item_id AS k, name AS n FROM ${f}`).map((r) => `${r.b}:${norm(r.k)}:${r.n}`).sort();
  const ib = (await icebirdRows(t)).map((r) => `${r.BRANCH_ID}:${norm(r.item_id)}:${r.name}`).sort();
  expect(ib).toEqual(ch);
  return ch;
}

async function sourceRows(): Promise<string[]> {
  const out: string[] = [];
  for (const i of [0, 1]) for (const r of await sql(i, 'SELECT item_id AS k, name AS n FROM shop.items')) out.push(`b${i}:${norm(r.k)}:${r.n}`);
  return out.sort();
}

describe('deletes compared while the merge runs', () => {
  it('both branches: deletes and updates in one commit; the lake equals the sources', async () => {
    expect((await run('INITIAL')).ok).toBe(true);
    await sql(0, `DELETE FROM shop.items WHERE item_id IN (3, 150, 400); UPDATE shop.items SET name = 'upd', updated_at = '2025-06-01' WHERE item_id IN (4, 5)`);
    await sql(1, `DELETE FROM shop.items WHERE item_id = 7; INSERT INTO shop.items VALUES (401, 'new', '2025-06-01')`);
    const snaps = (await lake.loadTable('etl.items')).snapshots().length;
    const r = await run('INCREMENTAL');
    expect(r.ok).toBe(true);
    expect(r.units.map((u) => `${u.branch}:${u.rows}:${u.rowsDeleted}`).sort()).toEqual(['b0:2:3', 'b1:1:1']);
    expect((await lake.loadTable('etl.items')).snapshots().length).toBe(snaps + 1);
    expect(await lakeRows()).toEqual(await sourceRows());
  });

  it('a comparison that fails fails its unit alone, says why, and the next run applies its deletes', async () => {
    await sql(0, `DELETE FROM shop.items WHERE item_id = 20`);
    await sql(1, `DELETE FROM shop.items WHERE item_id IN (21, 22); UPDATE shop.items SET name = 'b1 upd', updated_at = '2025-07-01' WHERE item_id = 23`);
    const broken = fx.branches.map((b) => (b.key !== 'b1' ? b : {
      ...b, source: { ...b.source, bytesQuery: async () => { throw new AppError('validation', 'permission denied for the key read'); } },
    }));
    const r = await run('INCREMENTAL', broken);
    expect(r.ok).toBe(false);
    const b0 = r.units.find((u) => u.branch === 'b0')!, b1 = r.units.find((u) => u.branch === 'b1')!;
    expect([b0.status, b0.rowsDeleted]).toEqual(['SUCCESS', 1]);
    expect(b1.status).toBe('FAILED');
    expect(b1.error).toContain('etl: items on branch b1: deletes: detect failed: permission denied for the key read; the branch\'s deletes were not applied');
    const rows = await lakeRows();
    expect(rows).not.toContain('b0:20:item 20@0');
    // b1's keys are still there; its update was merged with the others (the next run loads it again)
    expect(rows.filter((x) => /^b1:2[12]:/.test(x))).toEqual(['b1:21:item 21@1', 'b1:22:item 22@1']);
    expect(rows).toContain('b1:23:b1 upd');
    const wm = await fx.db.pool.query<{ branch: string; n: number }>(`SELECT branch_id AS branch, count(*)::int AS n FROM etl_meta.etl_run_log WHERE table_name = 'items' AND status = 'FAILED' GROUP BY branch_id`);
    expect(wm.rows).toEqual([{ branch: 'b1', n: 1 }]);
    const again = await run('INCREMENTAL');
    expect(again.ok).toBe(true);
    expect(again.units.map((u) => `${u.branch}:${u.rowsDeleted}`).sort()).toEqual(['b0:0', 'b1:2']);
    expect(again.units.find((u) => u.branch === 'b1')!.rows).toBe(1); // the update again: its watermark had not advanced
    expect(await lakeRows()).toEqual(await sourceRows());
  });
});
