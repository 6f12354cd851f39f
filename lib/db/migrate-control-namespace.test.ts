import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { getWatermarks } from './control-state';
import { listMigrations, migrate, MIGRATIONS_DIR } from './migrate';

// Migration 0015 re-keys etl_meta's control tables by lake table (namespace + name) × branch:
// rows written before it belong to the default namespace `etl` and keep their watermarks.
let db: TestDatabase;
let before: string;
beforeAll(async () => {
  db = await createTestDatabase({ template: false });
  before = await fs.mkdtemp(path.join(os.tmpdir(), 'mig-'));
  for (const m of (await listMigrations()).filter((n) => n < '0015')) await fs.cp(path.join(MIGRATIONS_DIR, m), path.join(before, m), { recursive: true });
});
afterAll(async () => { await db?.drop(); if (before) await fs.rm(before, { recursive: true, force: true }); });

describe('0015_control_per_lake_table', () => {
  it('moves existing rows to namespace etl without losing a watermark, then keys by namespace', async () => {
    await migrate(db.url, { dir: before });
    await db.pool.query(`INSERT INTO etl_meta.control_state (table_name, branch_id, last_cdc_value, last_date_value, last_run_id, last_mode)
      VALUES ('country', 'b0', '2022-02-15 09:44:20', NULL, 'etl-1', 'INCREMENTAL'), ('payment', 'b1', '2022-07-27 00:00:00', '2022-07-27', 'etl-1', 'INITIAL')`);
    await db.pool.query(`INSERT INTO etl_meta.etl_control (table_name, branch_id, last_cdc_value, status, row_count) VALUES ('country', 'b0', '2022-02-15 09:44:20', 'SUCCESS', 109)`);
    await db.pool.query(`INSERT INTO etl_meta.etl_run_log (pipeline_run_id, table_name, branch_id, mode, status, row_count, started_at) VALUES ('etl-1', 'country', 'b0', 'INITIAL', 'SUCCESS', 109, now())`);
    const r = await migrate(db.url);
    expect(r.applied).toContain('0015_control_per_lake_table');
    const cs = await db.pool.query(`SELECT namespace, table_name, branch_id, last_cdc_value, last_date_value, last_run_id FROM etl_meta.control_state ORDER BY table_name`);
    expect(cs.rows).toEqual([
      { namespace: 'etl', table_name: 'country', branch_id: 'b0', last_cdc_value: '2022-02-15 09:44:20', last_date_value: null, last_run_id: 'etl-1' },
      { namespace: 'etl', table_name: 'payment', branch_id: 'b1', last_cdc_value: '2022-07-27 00:00:00', last_date_value: '2022-07-27', last_run_id: 'etl-1' },
    ]);
    expect((await db.pool.query(`SELECT namespace, row_count::int AS n FROM etl_meta.etl_control`)).rows).toEqual([{ namespace: 'etl', n: 109 }]);
    expect((await db.pool.query(`SELECT namespace, dropped_duplicates::int AS d FROM etl_meta.etl_run_log`)).rows).toEqual([{ namespace: 'etl', d: 0 }]);
    // the same table and branch in another namespace is another row, not a conflict
    await db.pool.query(`INSERT INTO etl_meta.control_state (namespace, table_name, branch_id, last_cdc_value) VALUES ('probe', 'country', 'b0', 'Zambia')`);
    expect([...await getWatermarks(db.pool, { namespace: 'etl', table: 'country' }, ['b0'])]).toEqual([['b0', { cdc: '2022-02-15 09:44:20', date: null }]]);
    await expect(db.pool.query(`INSERT INTO etl_meta.control_state (namespace, table_name, branch_id) VALUES ('probe', 'country', 'b0')`)).rejects.toThrow(/duplicate key/);
  });
});
