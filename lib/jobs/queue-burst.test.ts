import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { createPrisma, type Db } from '../db/prisma';
import { parseEnv, type Env } from '../config/env';
import { silentLogger } from '../log';
import { waitFor } from '../testing/wait-for';
import { createJobRegistry, enqueueJob, startWorker, systemJobs, type WorkerHandle } from './index';
import { JOBS_CHANNEL } from './wake';

let db: TestDatabase;
let prisma: Db;
let env: Env;
let dataDir: string;
let worker: WorkerHandle | null = null;
const jobs = createJobRegistry(systemJobs);

beforeAll(async () => {
  db = await createTestDatabase();
  prisma = createPrisma(db.url, { max: 2 });
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'jobs-burst-'));
  env = parseEnv({ TRIBUTARY_DATA_DIR: dataDir } as unknown as NodeJS.ProcessEnv);
});
afterEach(async () => { await worker?.stop(); worker = null; });
afterAll(async () => {
  await prisma.$disconnect();
  await db.drop();
  await fs.rm(dataDir, { recursive: true, force: true });
});

async function enqueueMany(n: number, clients = 8): Promise<string[]> {
  const ids: string[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: clients }, async () => {
    while (next < n) {
      next++;
      ids.push((await enqueueJob({ pool: db.pool, jobs, env }, { kind: 'system.check', createdBy: 'burst' })).runId);
    }
  }));
  return ids;
}

describe('the queue keeps up', () => {
  it('drains a burst of 1,000 tiny jobs at the default concurrency: every one done, none run twice, every queue job completed', async () => {
    const ids = await enqueueMany(1000);
    expect(new Set(ids).size).toBe(1000);
    worker = await startWorker({ jobs, pool: db.pool, env, logger: silentLogger });
    await waitFor('the burst to drain', async () => (await db.pool.query(
      `select count(*)::int n from job_runs where id = any($1::uuid[]) and status in ('queued', 'running')`, [ids])).rows[0].n === 0, 300_000);
    const runs = await db.pool.query(
      `select status, attempts, count(*)::int n from job_runs where id = any($1::uuid[]) group by 1, 2`, [ids]);
    expect(runs.rows).toEqual([{ status: 'succeeded', attempts: 1, n: 1000 }]);
    // Run once each: one "started" line per run, and the run's last lines written with its end.
    const started = await db.pool.query(
      `select run_id, count(*) filter (where message = 'started system.check')::int s,
              count(*) filter (where message = 'finished system.check')::int f
         from job_logs where run_id = any($1::uuid[]) group by run_id`, [ids]);
    expect(started.rowCount).toBe(1000);
    expect(started.rows.every((r) => r.s === 1 && r.f === 1)).toBe(true);
    const queue = await db.pool.query(
      `select j.state::text, count(*)::int n from pgboss.job j join job_runs r on r.queue_job_id = j.id
        where r.id = any($1::uuid[]) group by 1`, [ids]);
    expect(queue.rows).toEqual([{ state: 'completed', n: 1000 }]);
  }, 360_000);

  it('an idle worker is woken by the enqueue (LISTEN/NOTIFY), not by its next poll', async () => {
    // A poll so long that only the notification can start the job within the deadline below.
    let empty = 0;
    worker = await startWorker({ jobs, pool: db.pool, env, logger: silentLogger, pollMs: 3_600_000, onQueueEmpty: () => { empty++; } });
    await waitFor('the worker to LISTEN', async () => (await db.pool.query(
      `select count(*)::int n from pg_stat_activity where datname = current_database() and query ilike $1`, [`listen ${JOBS_CHANNEL}`])).rows[0].n > 0);
    // The worker looks at the (empty) queue twice, then sleeps on its hour-long poll: once as it starts, and
    // once more when its listener, connected, wakes it (for jobs queued before it listened). Whichever
    // order those two take, the second empty look is the last before the sleep.
    await waitFor('the worker to fall asleep on an empty queue', () => empty >= 2);
    const { runId } = await enqueueJob({ pool: db.pool, jobs, env }, { kind: 'system.check' });
    await waitFor('the job to run', async () => (await db.pool.query('select status from job_runs where id = $1', [runId])).rows[0].status === 'succeeded', 120_000);
  }, 300_000);

  it('stopping a worker right after it starts loses no run and runs none twice (a claimed batch goes back to the queue)', async () => {
    // stop() right after start: any batch the claim loop took goes back, and a second worker runs it.
    const ids = await enqueueMany(6, 2);
    const w = await startWorker({ jobs, pool: db.pool, env, logger: silentLogger, concurrency: 2 });
    await w.stop();
    worker = await startWorker({ jobs, pool: db.pool, env, logger: silentLogger, concurrency: 2 });
    await waitFor('the six runs to succeed', async () => (await db.pool.query(
      `select count(*)::int n from job_runs where id = any($1::uuid[]) and status = 'succeeded'`, [ids])).rows[0].n === 6, 120_000);
    const twice = await db.pool.query(`select count(*)::int n from job_runs where id = any($1::uuid[]) and attempts <> 1`, [ids]);
    expect(twice.rows[0].n).toBe(0);
  });
});
