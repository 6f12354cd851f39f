import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type pg from 'pg';
import { expect } from 'vitest';
import type { UnitAttemptView } from '../jobs/fanout';
import { getJobRun, type JobLogLine, type JobRunView } from '../jobs/runs';
import { waitFor } from './wait-for';

/**
 * Real worker processes for tests (`node bin/tributary.mjs worker`) on one
 * database and data folder (unless `start` is given another), with the
 * default TRIBUTARY_FANOUT (auto: a run fans out when another worker is
 * alive); `stopAll` ends every one still running (a test must leave none behind).
 */
export function workerProcesses(o: { databaseUrl: () => string; dataDir: () => string; env?: Record<string, string> }) {
  const children = new Set<ChildProcess>();
  return {
    start(extra: Record<string, string> = {}): ChildProcess {
      const child = spawn(process.execPath, [path.resolve('bin/tributary.mjs'), 'worker'], {
        // A 12 s stale limit, not the 3 s minimum: on a loaded machine a busy worker's heartbeat can
        // lag a few seconds, and a live worker reaped would fail the test for the wrong reason.
        env: { ...process.env, DATABASE_URL: o.databaseUrl(), TRIBUTARY_DATA_DIR: o.dataDir(), TRIBUTARY_JOB_STALE_SECONDS: '12', LOG_LEVEL: 'error', ...o.env, ...extra },
        stdio: 'ignore',
      });
      children.add(child);
      child.once('exit', () => children.delete(child));
      return child;
    },
    async stopAll(): Promise<void> {
      await Promise.all([...children].map((c) => new Promise<void>((res) => {
        c.once('exit', () => res());
        c.kill('SIGINT');
        setTimeout(() => { c.kill('SIGKILL'); }, 20_000).unref();
      })));
    },
  };
}

/** Wait until `n` workers have registered (with TRIBUTARY_FANOUT=auto a run fans out only to workers alive as it starts). */
export async function waitForWorkers(pool: pg.Pool, n: number): Promise<void> {
  await waitFor(`${n} workers to register`, async () => Number((await pool.query('select count(*) from workers')).rows[0].count) >= n, 120_000);
}

/** The run once it has ended (succeeded, failed or cancelled), waiting up to `ms` (a fanned-out run on a loaded machine takes minutes). */
export async function runEnded(pool: pg.Pool, runId: string, ms = 180_000): Promise<JobRunView & { logs: JobLogLine[] }> {
  return waitFor(`run ${runId} to end`, async () => {
    const x = await getJobRun(pool, runId, { logLimit: 0 });
    return x && x.status !== 'queued' && x.status !== 'running' && x;
  }, ms);
}

/**
 * Wait until some unit of `parentRunId` runs on a worker other than the
 * coordinator's (whose death fails the run visibly, by design), and return
 * that worker's pid and the unit.
 */
export async function unitOnAnotherWorker(pool: pg.Pool, parentRunId: string): Promise<{ pid: number; unit: string }> {
  return waitFor('a unit on a worker other than the coordinator', async () => {
    const coord = (await pool.query('select worker_id from job_runs where id = $1', [parentRunId])).rows[0]?.worker_id as string | null;
    if (!coord) return false;
    const r = await pool.query(`select u.unit_key, r.worker_id from job_units u join job_runs r on r.id = u.child_run_id
      where u.parent_run_id = $1 and r.status = 'running' and r.worker_id <> $2 limit 1`, [parentRunId, coord]);
    return r.rowCount ? { pid: Number(String(r.rows[0].worker_id).split(':')[1]), unit: r.rows[0].unit_key as string } : false;
  }, 180_000);
}

/** The units a killed worker `pid` held failed there and succeeded later on another worker, each exactly once. */
export function expectLostUnitsRanElsewhere(units: UnitAttemptView[], pid: number): void {
  const lost = units.filter((u) => u.workerId?.split(':')[1] === String(pid) && u.status === 'failed');
  expect(lost.length).toBeGreaterThan(0);
  for (const l of lost) {
    const again = units.filter((u) => u.unit === l.unit && u.status === 'succeeded');
    expect(again).toHaveLength(1);
    expect(again[0].attempt).toBeGreaterThan(l.attempt);
    expect(again[0].workerId).not.toBe(l.workerId);
  }
}
