import path from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../testing/wait-for';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { createPrisma, type Db } from '../db/prisma';
import { parseEnv } from '../config/env';
import { silentLogger } from '../log';
import { AppError } from '../errors';
import { createJobRegistry, enqueueJob, getJobRun, listJobRuns, requestCancel, startWorker, systemJobs, type WorkerHandle } from './index';

let db: TestDatabase;
let prisma: Db;
let worker: WorkerHandle | null = null;
const jobs = createJobRegistry(systemJobs);
const env = parseEnv({ TRIBUTARY_DATA_DIR: path.join(process.cwd(), '.data-test-jobs') } as unknown as NodeJS.ProcessEnv);

beforeAll(async () => {
  db = await createTestDatabase();
  prisma = createPrisma(db.url, { max: 2 });
});
afterAll(async () => {
  await worker?.stop();
  await prisma.$disconnect();
  await db.drop();
});

describe('jobs', () => {
  it('rejects an unknown kind and a bad payload, writing nothing', async () => {
    await expect(enqueueJob({ pool: db.pool, jobs, env }, { kind: 'nope.nothing' })).rejects.toMatchObject({ code: 'validation', field: 'kind' });
    const err = await enqueueJob({ pool: db.pool, jobs, env }, { kind: 'system.check', params: { holdSeconds: 'x' } }).catch((e) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err.field).toBe('params.holdSeconds');
    const extra = await enqueueJob({ pool: db.pool, jobs, env }, { kind: 'system.check', params: { bogus: 1 } }).catch((e) => e);
    expect(extra.code).toBe('validation');
    expect((await db.pool.query('select count(*)::int n from job_runs')).rows[0].n).toBe(0);
    expect((await db.pool.query(`select count(*)::int n from pgboss.job where name = 'tributary-jobs'`)).rows[0].n).toBe(0);
  });

  it('runs system.check end to end with progress and a stored log', async () => {
    const { runId } = await enqueueJob({ pool: db.pool, jobs, env }, { kind: 'system.check', createdBy: 'test' });
    const queued = await getJobRun(db.pool, runId);
    expect(queued?.status).toBe('queued');
    // A stale limit far beyond a heartbeat a loaded machine could delay: this worker's own live runs (the
    // 60 s hold below) must end by the worker, never by its reaper.
    worker = await startWorker({ jobs, pool: db.pool, env, logger: silentLogger, concurrency: 2, heartbeatMs: 300, staleAfterMs: 60_000 });
    const done = await waitFor('system.check to succeed', async () => { const r = await getJobRun(db.pool, runId); return r?.status === 'succeeded' && r; }, 120_000);
    expect(done.progress).toEqual({ done: 3, total: 3 });
    expect(done.result).toMatchObject({ database: 'ok' });
    expect(done.logs.map((l) => l.message)).toEqual(expect.arrayContaining(['database reachable', 'data folder writable', 'finished system.check']));
    expect(done.createdBy).toBe('test');
    const listed = await listJobRuns(db.pool, { kind: 'system.check' });
    expect(listed.map((r) => r.id)).toContain(runId);
  });

  it('cancels a running job cooperatively and a queued one at once', async () => {
    const { runId } = await enqueueJob({ pool: db.pool, jobs, env }, { kind: 'system.check', params: { holdSeconds: 60 } });
    await waitFor('the held job to run', async () => (await getJobRun(db.pool, runId))?.status === 'running', 120_000);
    await requestCancel(db.pool, runId);
    const r = await waitFor('the job to end cancelled', async () => { const x = await getJobRun(db.pool, runId); return x?.status === 'cancelled' && x; }, 120_000);
    expect(r.finishedAt).not.toBeNull();
    await expect(requestCancel(db.pool, runId)).rejects.toMatchObject({ code: 'conflict' });

    await worker!.stop();
    worker = null;
    const q = await enqueueJob({ pool: db.pool, jobs, env }, { kind: 'system.check' });
    const c = await requestCancel(db.pool, q.runId);
    expect(c.status).toBe('cancelled');
  });

  it('fails a run whose worker was killed (kill -9), with a note saying why', async () => {
    const child = spawn(process.execPath, [path.resolve('bin/tributary.mjs'), 'worker'], {
      env: { ...process.env, DATABASE_URL: db.url, TRIBUTARY_DATA_DIR: env.dataDir, LOG_LEVEL: 'error' },
      stdio: 'ignore',
    });
    try {
      const { runId } = await enqueueJob({ pool: db.pool, jobs, env }, { kind: 'system.check', params: { holdSeconds: 120 } });
      await waitFor('the child worker to run the job', async () => (await getJobRun(db.pool, runId))?.status === 'running', 120_000);
      child.kill('SIGKILL');
      worker = await startWorker({ jobs, pool: db.pool, env, logger: silentLogger, heartbeatMs: 300, staleAfterMs: 3000 });
      const r = await waitFor('the reaper to fail the killed run', async () => { const x = await getJobRun(db.pool, runId); return x?.status === 'failed' && x; }, 120_000);
      expect(r.error).toMatch(/stopped responding/);
      expect(r.logs.some((l) => l.level === 'error' && /stopped responding/.test(l.message))).toBe(true);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
