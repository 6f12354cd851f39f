import { beforeAll, describe, expect, it } from 'vitest';
import type { TestDatabase } from '../testing/pg';
import { branchSql, etlRunner, useEtlLake } from '../testing/etl-lake-fixture';
import { queryBranch } from '../testing/branch-fixtures';
import { silentLogger } from '../log';
import type { Lake } from '../lake';
import { parseTablesConfig } from '../config/tables-json';
import { ControlBatch } from './control-batch';
import type { ControlRecords } from './control';

// Issue #23: a run's fixed costs. A unit with nothing to load commits nothing to the lake;
// the control rows of a phase are written in batches that record every unit.
const N = 3;
const TABLES = ['t0', 't1', 't2', 't3'];
let db: TestDatabase;
let lake: Lake;
// CDC column only: a date watermark is inclusive and would re-read its last day's rows
const tables = parseTablesConfig(TABLES.map((t, i) => ({ table: `NOOP.${t.toUpperCase()}`, unique_key: 'ID', cdc_column: 'AMEND_LAST_DATE', category: i === 0 ? 'masters' : 'transactions' })));

/** Each lake table's snapshot count and current snapshot, read through the lake. */
async function lakeState(): Promise<Record<string, { snapshots: number; current: string | null }>> {
  const out: Record<string, { snapshots: number; current: string | null }> = {};
  for (const t of TABLES) {
    const tbl = await lake.loadTable(`noop.${t}`);
    const cur = tbl.currentSnapshotId();
    out[t] = { snapshots: tbl.snapshots().length, current: cur === null ? null : String(cur) };
  }
  return out;
}

const controlState = async () => (await db.pool.query(`SELECT table_name, branch_id, last_cdc_value, last_run_id, snapshot_id FROM etl_meta.control_state
  WHERE namespace = 'noop' ORDER BY 1, 2`)).rows;

const fx = useEtlLake({
  name: 'br', count: N,
  seed: (url) => queryBranch(url, `CREATE SCHEMA noop;` + TABLES.map((t) => `CREATE TABLE noop.${t} (id int8 PRIMARY KEY, name text, amend_last_date timestamp);
      INSERT INTO noop.${t} SELECT g, 'row ' || g, timestamp '2024-01-01' + g * interval '1 minute' FROM generate_series(1, 20) g;`).join('')),
});
const run = etlRunner(fx, { namespace: 'noop', tables, settings: { namespace: 'noop' } });
const sql = branchSql(fx);
beforeAll(async () => {
  ({ db, lake } = fx);
  const init = await run('INITIAL');
  expect(init.units.filter((u) => u.status !== 'SUCCESS')).toEqual([]);
});

describe('a run\'s fixed costs (#23)', () => {
  it('a no-op INCREMENTAL commits nothing to the lake and records every unit', async () => {
    const lakeBefore = await lakeState();
    const csBefore = await controlState();
    const r = await run('INCREMENTAL');
    expect(r.ok).toBe(true);
    expect(r.units.map((u) => [u.status, u.rows])).toEqual(Array(N * TABLES.length).fill(['SUCCESS', 0]));
    // no commit: every table's snapshots as they were
    expect(await lakeState()).toEqual(lakeBefore);
    // control state: watermarks and snapshot ids kept, the run recorded on every unit
    const cs = await controlState();
    expect(cs.length).toBe(N * TABLES.length);
    expect(cs.map((x) => ({ ...x, last_run_id: null }))).toEqual(csBefore.map((x) => ({ ...x, last_run_id: null })));
    expect(new Set(cs.map((x) => x.last_run_id))).toEqual(new Set([r.runId]));
    expect(cs.every((x) => x.snapshot_id === lakeBefore[x.table_name].current)).toBe(true);
    const log = await db.pool.query(`SELECT status, row_count::int AS rows, write_disposition, count(*)::int AS n FROM etl_meta.etl_run_log WHERE pipeline_run_id = $1 GROUP BY 1, 2, 3`, [r.runId]);
    expect(log.rows).toEqual([{ status: 'SUCCESS', rows: 0, write_disposition: 'merge', n: N * TABLES.length }]);
    const ctl = await db.pool.query(`SELECT status, row_count::int AS rows, count(*)::int AS n FROM etl_meta.etl_control WHERE namespace = 'noop' AND pipeline_run_id = $1 GROUP BY 1, 2`, [r.runId]);
    expect(ctl.rows).toEqual([{ status: 'SUCCESS', rows: 0, n: N * TABLES.length }]);
  });

  it('a changed table commits once; unchanged ones commit nothing; a failed unit does not lose the others\' records', async () => {
    const lakeBefore = await lakeState();
    const csBefore = await controlState();
    await sql(1, `UPDATE noop.t1 SET name = 'changed', amend_last_date = timestamp '2025-01-01' WHERE id = 5`);
    await sql(2, `DROP TABLE noop.t2`);
    const r = await run('INCREMENTAL');
    expect(r.ok).toBe(false);
    const failed = r.units.filter((u) => u.status !== 'SUCCESS');
    expect(failed.map((u) => `${u.table}@${u.branch}:${u.status}`)).toEqual(['t2@b2:FAILED']);
    expect(r.units.find((u) => u.table === 't1' && u.branch === 'b1')!.rows).toBe(1);
    const lakeAfter = await lakeState();
    expect(lakeAfter.t1.snapshots).toBe(lakeBefore.t1.snapshots + 1);
    for (const t of ['t0', 't2', 't3']) expect(lakeAfter[t], t).toEqual(lakeBefore[t]);
    // every unit has its run-log row, the failed one FAILED
    const log = await db.pool.query(`SELECT table_name, branch_id, status FROM etl_meta.etl_run_log WHERE pipeline_run_id = $1 ORDER BY 1, 2`, [r.runId]);
    expect(log.rows.length).toBe(N * TABLES.length);
    expect(log.rows.filter((x) => x.status !== 'SUCCESS')).toEqual([{ table_name: 't2', branch_id: 'b2', status: 'FAILED' }]);
    // watermarks: t1@b1 advanced with its commit (and its snapshot id is the new one), the failed unit's kept, every other unit recorded by this run
    const cs = await controlState();
    const at = (rows: typeof cs, t: string, b: string) => rows.find((x) => x.table_name === t && x.branch_id === b);
    expect(at(cs, 't1', 'b1').last_cdc_value).toMatch(/^2025-01-01/);
    expect(at(cs, 't1', 'b1').snapshot_id).toBe(lakeAfter.t1.current);
    expect(at(cs, 't2', 'b2')).toEqual(at(csBefore, 't2', 'b2'));
    expect(cs.filter((x) => x.last_run_id === r.runId).length).toBe(N * TABLES.length - 1);
    const ctl = await db.pool.query(`SELECT status, error_details FROM etl_meta.etl_control WHERE namespace = 'noop' AND table_name = 't2' AND branch_id = 'b2'`);
    expect(ctl.rows[0].status).toBe('FAILED');
    expect(ctl.rows[0].error_details).toMatch(/t2/);
  });

  it('a batched control write that fails is written group by group: one bad group does not lose the others', async () => {
    const at = new Date('2026-01-01T00:00:00Z');
    const group = (table: string, error?: string): ControlRecords => ({
      successes: error ? [] : [{ namespace: 'batch', table, branch: 'b0', runId: 'r-batch', mode: 'INCREMENTAL', watermark: { cdc: '7', date: null }, snapshotId: null, rows: 3, startedAt: at, finishedAt: at }],
      failures: error ? [{ namespace: 'batch', table, branch: 'b0', runId: 'r-batch', status: 'FAILED', error, startedAt: at, finishedAt: at }] : [],
      runLogs: [{ runId: 'r-batch', namespace: 'batch', table, branch: 'b0', mode: 'INCREMENTAL', category: 'transactions', status: error ? 'FAILED' : 'SUCCESS', rows: 3, startedAt: at, finishedAt: at, attempts: 1, writeDisposition: 'merge', schemaDiscrepancy: null, error: error ?? null }],
    });
    const batch = new ControlBatch(db.pool, silentLogger);
    await batch.add(group('a'), { now: false });
    // PostgreSQL refuses a NUL character in text: this group's write fails
    await batch.add(group('bad', 'broken \u0000 message'), { now: false });
    await batch.add(group('c'), { now: false });
    await expect(batch.flush()).rejects.toThrow();
    const log = await db.pool.query(`SELECT table_name FROM etl_meta.etl_run_log WHERE pipeline_run_id = 'r-batch' ORDER BY 1`);
    expect(log.rows.map((x) => x.table_name)).toEqual(['a', 'c']);
    const cs = await db.pool.query(`SELECT table_name, last_cdc_value FROM etl_meta.control_state WHERE namespace = 'batch' ORDER BY 1`);
    expect(cs.rows).toEqual([{ table_name: 'a', last_cdc_value: '7' }, { table_name: 'c', last_cdc_value: '7' }]);
    // nothing waits after a flush; a later batch of many groups is one write that records them all
    const many = new ControlBatch(db.pool, silentLogger);
    for (let i = 0; i < 40; i++) await many.add(group(`m${String(i).padStart(2, '0')}`), { now: false });
    await many.add(group('last'), { now: true });
    const n = await db.pool.query(`SELECT count(*)::int AS n FROM etl_meta.etl_run_log WHERE pipeline_run_id = 'r-batch'`);
    expect(n.rows[0].n).toBe(2 + 41);
    const ctl = await db.pool.query(`SELECT count(*)::int AS n FROM etl_meta.etl_control WHERE namespace = 'batch' AND status = 'SUCCESS'`);
    expect(ctl.rows[0].n).toBe(2 + 41);
  });
});
