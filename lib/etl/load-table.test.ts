import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../log';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { extractUnit } from './extract-unit';
import { loadTable } from './load-table';
import { ParquetEncoderPool } from '../lake';
import { planPhase } from './plan-run';
import { prepareSchemas } from './schema-step';
import type { EtlSettings } from './settings';
import { syntheticBranch, syntheticDefs, testContext } from './test-run-context';

let db: TestDatabase;
let staging: string;
let encoder: ParquetEncoderPool;
beforeAll(async () => {
  db = await createTestDatabase();
  staging = await fs.mkdtemp(path.join(os.tmpdir(), 'etl-load-'));
  encoder = new ParquetEncoderPool(1, { compression: 'snappy' });
});
afterAll(async () => {
  await encoder.close();
  await db?.drop();
  await fs.rm(staging, { recursive: true, force: true });
});
beforeEach(async () => {
  await db.pool.query('TRUNCATE etl_meta.control_state, etl_meta.etl_control, etl_meta.etl_run_log');
});

/** Customers on b0 and b1, through the schema step and extraction; `failB1` leaves b1 FAILED as a refused branch would. */
async function extracted(o: { settings?: Partial<EtlSettings>; allBranches?: boolean; failB1?: boolean } = {}) {
  const ctx = { ...testContext({ pool: db.pool, stagingRoot: staging, settings: { mode: 'INITIAL', ...o.settings }, allBranches: o.allBranches }), encoder };
  const branches = [syntheticBranch('b0', 0), syntheticBranch('b1', 1)];
  const { states, units } = planPhase('masters', syntheticDefs.slice(0, 1), branches);
  await prepareSchemas(ctx, silentLogger, branches, states, units);
  for (const u of units) {
    if (o.failB1 && u.branch.key === 'b1') { u.status = 'FAILED'; u.attempts = 3; u.error = 'connect ECONNREFUSED'; u.finishedAt = new Date(); continue; }
    await extractUnit(ctx, u, states.get('customers')!);
  }
  return { ctx, st: states.get('customers')!, units };
}

const control = async () => (await db.pool.query(`SELECT branch_id, last_cdc_value, last_run_id, snapshot_id FROM etl_meta.control_state ORDER BY branch_id`)).rows;
const runLog = async () => (await db.pool.query(`SELECT branch_id, status, row_count::int AS rows, attempts, write_disposition, error_details FROM etl_meta.etl_run_log ORDER BY branch_id`)).rows;

describe('loadTable', () => {
  it('INITIAL with every branch: one replace commit, then watermarks, etl_control and the run log per unit', async () => {
    const { ctx, st } = await extracted();
    await loadTable(ctx, st);
    expect(ctx.target.writes).toEqual([{ table: 'customers', disposition: 'replace', rows: 20 }]);
    expect(await control()).toEqual(['b0', 'b1'].map((b) => ({ branch_id: b, last_cdc_value: '2024-01-01 00:10:00.000000', last_run_id: 'etl-test', snapshot_id: '1' })));
    expect(await runLog()).toEqual(['b0', 'b1'].map((b) => ({ branch_id: b, status: 'SUCCESS', rows: 10, attempts: 1, write_disposition: 'replace', error_details: null })));
    expect(ctx.summary.units.map((u) => [u.branch, u.status, u.rows, u.writeDisposition, u.watermark?.cdc])).toEqual([
      ['b0', 'SUCCESS', 10, 'replace', '2024-01-01 00:10:00.000000'], ['b1', 'SUCCESS', 10, 'replace', '2024-01-01 00:10:00.000000'],
    ]);
    await expect(fs.access(path.join(staging, 'etl-test', 'customers'))).rejects.toThrow(/ENOENT/);
  });

  it('a failed branch: the INITIAL replaces the partitions of the others only, the failed unit is recorded and its watermark stays', async () => {
    const { ctx, st } = await extracted({ failB1: true });
    let replaced: string[] | undefined;
    const replace = ctx.target.replace.bind(ctx.target);
    ctx.target.replace = async (t, files, branches) => { replaced = branches; return replace(t, files, branches); };
    await loadTable(ctx, st);
    expect(ctx.target.writes).toEqual([{ table: 'customers', disposition: 'replace', rows: 10 }]);
    expect(replaced).toEqual(['b0']);
    expect((await control()).map((r) => r.branch_id)).toEqual(['b0']);
    expect(await runLog()).toEqual([
      { branch_id: 'b0', status: 'SUCCESS', rows: 10, attempts: 1, write_disposition: 'replace', error_details: null },
      { branch_id: 'b1', status: 'FAILED', rows: 0, attempts: 3, write_disposition: 'replace', error_details: 'connect ECONNREFUSED' },
    ]);
    const ctl = await db.pool.query(`SELECT branch_id, status FROM etl_meta.etl_control ORDER BY branch_id`);
    expect(ctl.rows).toEqual([{ branch_id: 'b0', status: 'SUCCESS' }, { branch_id: 'b1', status: 'FAILED' }]);
  });

  it('INCREMENTAL advances a watermark from the unit\'s old one, never backwards', async () => {
    const { ctx, st, units } = await extracted({ settings: { mode: 'INCREMENTAL' }, allBranches: false });
    units[1].watermark = { cdc: '2030-01-01 00:00:00.000000', date: null };
    await loadTable(ctx, st);
    expect((await control()).map((r) => r.last_cdc_value)).toEqual(['2024-01-01 00:10:00.000000', '2030-01-01 00:00:00.000000']);
  });

  it('a failed commit fails every unit as fatal, advances no watermark, and throws', async () => {
    const { ctx, st } = await extracted();
    ctx.target.replace = async () => { throw new Error('lake: commit conflict'); };
    await expect(loadTable(ctx, st)).rejects.toThrow('etl: load of customers failed: lake: commit conflict');
    expect(await control()).toEqual([]);
    expect((await runLog()).map((r) => [r.branch_id, r.status, r.rows, r.error_details])).toEqual([
      ['b0', 'FAILED', 0, 'etl: load of customers failed: lake: commit conflict'], ['b1', 'FAILED', 0, 'etl: load of customers failed: lake: commit conflict'],
    ]);
    expect(st.units.every((u) => u.fatal)).toBe(true);
  });
});
