// CLI-started engine runs are recorded as job runs (source cli): a real
// `tributary etl` child process on a real database, and the helper in-process
// for what a process cannot show from outside (live heartbeats, the reaper).
import { execFile } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { silentLogger } from '../log';
import { recordCliRun } from './record-cli-run';
import { reapStaleRuns } from './reaper';

const ROOT = path.resolve(import.meta.dirname, '../..');
let db: TestDatabase;
let dir: string;

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env, DATABASE_URL: db.url, TRIBUTARY_DATA_DIR: path.join(dir, 'data'), TRIBUTARY_WAREHOUSE: `file://${path.join(dir, 'warehouse')}`, TRIBUTARY_SECRET: 'cli-run-secret-0123456789abcdef', LOG_LEVEL: 'info' };
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(ROOT, 'bin/tributary.mjs'), ...args], { cwd: dir, env, timeout: 240_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}
const cliRuns = async () => (await db.pool.query(`select * from job_runs where source = 'cli' order by created_at`)).rows;
const logsOf = async (id: string) => (await db.pool.query('select level, message from job_logs where run_id = $1 order by id', [id])).rows;

beforeAll(async () => {
  db = await createTestDatabase();
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cli-run-'));
});
afterAll(async () => { await db?.drop(); await fs.rm(dir, { recursive: true, force: true }); });

describe('tributary etl, recorded as a run', () => {
  it('a self-test run: source cli, the parsed request as params, its log lines and final status', async () => {
    const r = await cli(['etl', '--self-test', '--mode', 'INITIAL']);
    expect(r.code, r.stderr).toBe(0);
    const [run] = await cliRuns();
    expect(run).toMatchObject({ kind: 'etl.run', status: 'succeeded', source: 'cli', created_by: 'cli', error: null });
    expect(run.worker_id).toMatch(/^cli:.+:\d+$/);
    expect(run.params).toMatchObject({ mode: 'INITIAL', selfTest: true });
    expect(run.finished_at).not.toBeNull();
    expect(run.result.units.length).toBeGreaterThan(0);
    expect(run.result.units.every((u: { status: string }) => u.status === 'SUCCESS')).toBe(true);
    expect(run.result.units[0]).not.toHaveProperty('sql');
    expect(run.progress_done).toBeGreaterThan(0);
    const logs = await logsOf(run.id);
    expect(logs.length).toBeGreaterThan(0);
  }, 300_000);

  it('a run that fails ends failed with its error, in the run and its log', async () => {
    const r = await cli(['etl', '--self-test', '--mode', 'INITIAL', '--tables', 'no_such_table']);
    expect(r.code).not.toBe(0);
    const runs = await cliRuns();
    const run = runs[runs.length - 1];
    expect(run).toMatchObject({ kind: 'etl.run', status: 'failed', source: 'cli' });
    expect(run.error).toMatch(/no_such_table/);
    expect(await logsOf(run.id)).toContainEqual({ level: 'error', message: run.error });
  }, 300_000);
});

describe('recordCliRun', () => {
  it('is running and heartbeating while the command works; a killed CLI is reaped like a dead worker', async () => {
    let seen: Record<string, unknown> | undefined;
    const value = await recordCliRun(db.pool, { kind: 'dq.run', params: { tables: ['orders'] }, logger: silentLogger, heartbeatMs: 20 }, async (run) => {
      run.logger.info('working');
      run.progress(1, 3);
      await new Promise((res) => setTimeout(res, 150));
      seen = (await db.pool.query('select status, worker_id, progress_done, progress_total, heartbeat_at > started_at as beat from job_runs where id = $1', [run.runId])).rows[0];
      return 42;
    });
    expect(value).toBe(42);
    expect(seen).toMatchObject({ status: 'running', worker_id: `cli:${os.hostname()}:${process.pid}`, progress_done: 1, progress_total: 3, beat: true });

    // A CLI killed mid-run leaves a running row that stops heartbeating.
    const id = (await db.pool.query(`insert into job_runs (id, kind, status, source, worker_id, started_at, heartbeat_at) values (gen_random_uuid(), 'etl.run', 'running', 'cli', 'cli:gone:1', now() - interval '1 hour', now() - interval '1 hour') returning id`)).rows[0].id;
    expect(await reapStaleRuns(db.pool, null, 30_000, { resumeKinds: ['etl.run'] })).toEqual({ failed: [id], resumed: [] }); // no queue job: failed even if its kind resumes
    expect((await db.pool.query('select status, error from job_runs where id = $1', [id])).rows[0]).toMatchObject({ status: 'failed', error: expect.stringMatching(/cli:gone:1 stopped responding/) });
  });

  it('keeps the error and never stores credentials in params', async () => {
    await expect(recordCliRun(db.pool, { kind: 'slices.run', params: { runId: 1, password: 'hunter2' }, logger: silentLogger }, async () => { throw new Error('slices: boom'); })).rejects.toThrow('slices: boom');
    const row = (await db.pool.query(`select params, status, error from job_runs where kind = 'slices.run'`)).rows[0];
    expect(row).toMatchObject({ status: 'failed', error: 'slices: boom' });
    expect(JSON.stringify(row.params)).not.toContain('hunter2');
  });
});
