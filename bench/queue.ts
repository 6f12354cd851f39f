/**
 * Queue benchmark (issue 28): how fast the queue takes tiny jobs in and how
 * fast one worker drains them, in the same run.
 * - enqueue: N `system.check` jobs posted through `enqueueJob` (the path
 *   `POST /api/v1/jobs` takes), `--clients` at a time, no worker running;
 * - drain: one worker (default concurrency, 2) started on the full queue,
 *   timed until every run has succeeded;
 * - the ratio drain ÷ enqueue (1 would mean the worker keeps up with the API).
 *
 *   npx tsx bench/queue.ts [--jobs 1000] [--clients 20] [--concurrency 2]
 * Uses $DATABASE_URL when set (its job tables are used as they are), else an
 * embedded PostgreSQL in a temp folder.
 */
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import { ensureEmbeddedPostgres, migrate, createPool, createPrisma } from '../lib/db';
import { parseEnv } from '../lib/config/env';
import { silentLogger } from '../lib/log';
import { createJobRegistry, enqueueJob, ensureQueue, startWorker, systemJobs } from '../lib/jobs';

const arg = (name: string, def: string) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : def; };
const JOBS = Number(arg('--jobs', '1000'));
const CLIENTS = Number(arg('--clients', '20'));
const CONCURRENCY = process.argv.includes('--concurrency') ? Number(arg('--concurrency', '2')) : undefined;
const perSecond = (n: number, ms: number) => n / (ms / 1000);

async function main() {
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-queue-'));
  await fs.chmod(tmp, 0o755); // embedded Postgres runs as another user when we are root
  let stopPg = async () => {};
  let url = process.env.DATABASE_URL;
  if (!url) { const h = await ensureEmbeddedPostgres(path.join(tmp, 'pgdata'), { database: 'tributary' }); url = h.url; stopPg = h.stop; }
  await migrate(url);
  const pool = createPool(url, { max: 20, application: 'bench-queue' });
  const prisma = createPrisma(url, { max: 2 });
  await ensureQueue(pool);
  const env = parseEnv({ TRIBUTARY_DATA_DIR: path.join(tmp, 'data') } as unknown as NodeJS.ProcessEnv);
  const jobs = createJobRegistry(systemJobs);
  const before = new Date();

  // enqueue, with no worker taking anything
  const t0 = performance.now();
  const ids: string[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: CLIENTS }, async () => {
    while (next < JOBS) {
      next++;
      ids.push((await enqueueJob({ pool, jobs, env }, { kind: 'system.check', createdBy: 'bench' })).runId);
    }
  }));
  const enqueueMs = performance.now() - t0;

  // drain, one worker on the full queue
  const t1 = performance.now();
  const worker = await startWorker({ jobs, pool, env, logger: silentLogger, concurrency: CONCURRENCY });
  for (;;) {
    const r = await pool.query(`select count(*) filter (where status in ('queued', 'running'))::int open,
                                       count(*) filter (where status = 'succeeded')::int ok,
                                       count(*) filter (where attempts > 1)::int twice
                                  from job_runs where id = any($1::uuid[])`, [ids]);
    if (r.rows[0].open === 0) {
      const drainMs = performance.now() - t1;
      await worker.stop();
      const enq = perSecond(JOBS, enqueueMs);
      const drain = perSecond(JOBS, drainMs);
      console.log(`jobs:     ${JOBS} system.check (enqueued by ${CLIENTS} clients; worker concurrency ${CONCURRENCY ?? env.TRIBUTARY_WORKER_CONCURRENCY})`);
      console.log(`enqueue:  ${enq.toFixed(0)} jobs/s (${(enqueueMs / 1000).toFixed(2)} s)`);
      console.log(`drain:    ${drain.toFixed(0)} jobs/s (${(drainMs / 1000).toFixed(2)} s; ${r.rows[0].ok} succeeded, ${r.rows[0].twice} run twice)`);
      console.log(`ratio:    drain ÷ enqueue = ${(drain / enq).toFixed(2)}`);
      break;
    }
    await new Promise((res) => setTimeout(res, 50));
  }
  await pool.query(`delete from job_runs where id = any($1::uuid[]) and created_at >= $2`, [ids, before]);
  await prisma.$disconnect();
  await pool.end();
  await stopPg();
  await fs.rm(tmp, { recursive: true, force: true });
}

main().catch((e) => { console.error(e); process.exit(1); });
