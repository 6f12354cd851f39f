// A run felled by the database going away (a real 57P01 from the server:
// its connection terminated under it) is queued again and finishes once the
// database answers, up to OUTAGE_ATTEMPTS; other failures end the run as before.
import path from 'node:path';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { createPrisma, type Db } from '../db/prisma';
import { parseEnv } from '../config/env';
import { silentLogger } from '../log';
import { createJobRegistry, defineJob, enqueueJob, getJobRun, startWorker, type WorkerHandle } from './index';
import { OUTAGE_ATTEMPTS } from './requeue-run';

/** Terminates its own database connection (as a server shutdown would) on its first `failFirst` attempts. */
const flaky = defineJob({
  kind: 'test.flaky-db',
  description: 'test: loses its database connection on its first attempts',
  payload: z.object({ failFirst: z.number().int().describe('attempts that lose the connection'), plain: z.boolean().default(false).describe('fail with an ordinary error instead') }).strict(),
  async run(ctx, p) {
    const { attempts } = (await ctx.pool.query('select attempts from job_runs where id = $1', [ctx.runId])).rows[0];
    if (attempts <= p.failFirst) {
      if (p.plain) throw new Error('an ordinary failure');
      const c = await ctx.pool.connect();
      try { await c.query('select pg_terminate_backend(pg_backend_pid())'); } finally { c.release(true); }
    }
    return { attempts };
  },
});

let db: TestDatabase;
let prisma: Db;
let worker: WorkerHandle;
const jobs = createJobRegistry([flaky]);
const env = parseEnv({ TRIBUTARY_DATA_DIR: path.join(process.cwd(), '.data-test-outage-requeue') } as unknown as NodeJS.ProcessEnv);

async function ended(runId: string) {
  for (const until = Date.now() + 60_000; Date.now() < until; await new Promise((r) => setTimeout(r, 200))) {
    const r = await getJobRun(db.pool, runId);
    if (r && ['succeeded', 'failed', 'cancelled'].includes(r.status)) return r;
  }
  throw new Error(`run ${runId} did not end`);
}

beforeAll(async () => {
  db = await createTestDatabase();
  prisma = createPrisma(db.url, { max: 2 });
  worker = await startWorker({ jobs, pool: db.pool, env, logger: silentLogger, concurrency: 2, heartbeatMs: 300, staleAfterMs: 30_000, pollMs: 200 });
});
afterAll(async () => {
  await worker?.stop();
  await prisma.$disconnect();
  await db.drop();
});

describe('a run the database went away under', () => {
  it('is queued again and succeeds once the database answers, its log saying why', async () => {
    const { runId } = await enqueueJob({ pool: db.pool, jobs, env }, { kind: 'test.flaky-db', params: { failFirst: 1 } });
    const run = await ended(runId);
    expect(run.status, JSON.stringify(run)).toBe('succeeded');
    expect(run.result).toEqual({ attempts: 2 });
    expect(run.error).toBeNull();
    const warn = run.logs.find((l) => l.level === 'warn');
    expect(warn?.message).toMatch(/^the database went away during the run: terminating connection due to administrator command; it runs again once the database is back \(attempt 2 of at most 3\)$/);
    // its queue job was reused, not duplicated
    const q = await db.pool.query(`select state from pgboss.job where name = 'tributary-jobs' and data->>'runId' = $1`, [runId]);
    expect(q.rows).toEqual([{ state: 'completed' }]);
  });

  it(`fails after ${OUTAGE_ATTEMPTS} attempts, with the error`, async () => {
    const { runId } = await enqueueJob({ pool: db.pool, jobs, env }, { kind: 'test.flaky-db', params: { failFirst: 99 } });
    const run = await ended(runId);
    expect(run.status).toBe('failed');
    expect(run.error).toBe('terminating connection due to administrator command');
    expect((await db.pool.query('select attempts from job_runs where id = $1', [runId])).rows[0].attempts).toBe(OUTAGE_ATTEMPTS);
    expect(run.logs.filter((l) => l.level === 'warn')).toHaveLength(OUTAGE_ATTEMPTS - 1);
  });

  it('an ordinary error is not retried', async () => {
    const { runId } = await enqueueJob({ pool: db.pool, jobs, env }, { kind: 'test.flaky-db', params: { failFirst: 1, plain: true } });
    const run = await ended(runId);
    expect(run.status).toBe('failed');
    expect(run.error).toBe('an ordinary failure');
    expect((await db.pool.query('select attempts from job_runs where id = $1', [runId])).rows[0].attempts).toBe(1);
  });
});
