// A run whose worker died: a kind with `resumeOnWorkerLoss` is queued again by the reaper and
// another (real) worker takes it over; any other kind is failed as before. The dead worker is a
// real claim (the worker's own claim statement) whose heartbeat then stops.
import path from 'node:path';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { parseEnv } from '../config/env';
import { silentLogger } from '../log';
import { waitFor } from '../testing/wait-for';
import { createJobRegistry, defineJob, enqueueJob, ensureQueue, getJobRun, startWorker, type WorkerHandle } from './index';
import { claimRuns } from './claim-runs';
import { MAX_QUICK_RESUME_ATTEMPTS, reapStaleRuns } from './reaper';

const attemptsOf = async (ctx: { pool: import('pg').Pool; runId: string }) => (await ctx.pool.query('select attempts from job_runs where id = $1', [ctx.runId])).rows[0].attempts as number;
const resumable = defineJob({
  kind: 'test.resumable', description: 'test: a long-lived job that resumes from its own position',
  payload: z.object({}).strict(), resumeOnWorkerLoss: true,
  async run(ctx) { return { attempts: await attemptsOf(ctx), worker: ctx.workerId }; },
});
const plain = defineJob({
  kind: 'test.plain', description: 'test: an ordinary job',
  payload: z.object({}).strict(),
  async run(ctx) { return { attempts: await attemptsOf(ctx) }; },
});

let db: TestDatabase;
let worker: WorkerHandle | undefined;
const jobs = createJobRegistry([resumable, plain]);
const env = parseEnv({ TRIBUTARY_DATA_DIR: path.join(process.cwd(), '.data-test-resume-worker-loss') } as unknown as NodeJS.ProcessEnv);

beforeAll(async () => {
  db = await createTestDatabase();
  await ensureQueue(db.pool);
});
afterAll(async () => {
  await worker?.stop();
  await db?.drop();
});

describe('a run whose worker died', () => {
  it('is taken over by another worker when its kind resumes on worker loss, and failed otherwise', async () => {
    const a = (await enqueueJob({ pool: db.pool, jobs, env }, { kind: 'test.resumable', params: {} })).runId;
    const b = (await enqueueJob({ pool: db.pool, jobs, env }, { kind: 'test.plain', params: {} })).runId;
    const c = (await enqueueJob({ pool: db.pool, jobs, env }, { kind: 'test.resumable', params: {} })).runId;
    // a worker claims all three, then dies: its heartbeats stop
    const claimed = await claimRuns(db.pool, 'gone:1:dead', 10);
    expect(claimed.runs.map((r) => r.runId).sort()).toEqual([a, b, c].sort());
    await db.pool.query(`update job_runs set heartbeat_at = now() - interval '1 hour' where worker_id = 'gone:1:dead'`);
    // one of the resumable runs had been asked to cancel: it is not resumed
    await db.pool.query(`update job_runs set cancel_requested = true where id = $1`, [c]);

    const kinds = jobs.all.filter((d) => d.resumeOnWorkerLoss).map((d) => d.kind);
    expect(kinds).toEqual(['test.resumable']);
    const reaped = await reapStaleRuns(db.pool, null, 30_000, { resumeKinds: kinds });
    expect(reaped.resumed).toEqual([a]);
    expect(reaped.failed.sort()).toEqual([b, c].sort());
    expect(await reapStaleRuns(db.pool, null, 30_000, { resumeKinds: kinds })).toEqual({ failed: [], resumed: [] }); // nothing twice
    expect((await getJobRun(db.pool, a))?.status).toBe('queued');
    expect((await getJobRun(db.pool, b))).toMatchObject({ status: 'failed', error: expect.stringMatching(/gone:1:dead stopped responding.*start it again/) });
    const log = (await db.pool.query(`select level, message from job_logs where run_id = $1`, [a])).rows;
    expect(log).toEqual([{ level: 'warn', message: expect.stringMatching(/gone:1:dead stopped responding.*queued again for another worker/) }]);

    // another worker takes the resumed run over: its second attempt, on that worker
    worker = await startWorker({ jobs, pool: db.pool, env, logger: silentLogger, heartbeatMs: 300, pollMs: 200 });
    await waitFor('the resumed run to finish', async () => (await getJobRun(db.pool, a))?.status === 'succeeded', 60_000);
    expect((await getJobRun(db.pool, a))?.result).toEqual({ attempts: 2, worker: worker.id });
    expect((await getJobRun(db.pool, b))?.status).toBe('failed');
  }, 120_000);

  it('is resumed by a live worker\'s own reaper round and run by it', async () => {
    await worker!.stop();
    worker = undefined;
    const a = (await enqueueJob({ pool: db.pool, jobs, env }, { kind: 'test.resumable', params: {} })).runId;
    expect((await claimRuns(db.pool, 'gone:2:dead', 10)).runs.map((r) => r.runId)).toEqual([a]);
    await db.pool.query(`update job_runs set heartbeat_at = now() - interval '1 hour' where id = $1`, [a]);
    worker = await startWorker({ jobs, pool: db.pool, env, logger: silentLogger, heartbeatMs: 300, pollMs: 200, staleAfterMs: 3000 });
    await waitFor('the worker to take the run over', async () => (await getJobRun(db.pool, a))?.status === 'succeeded', 90_000);
    expect((await getJobRun(db.pool, a))?.result).toEqual({ attempts: 2, worker: worker.id });
  }, 120_000);

  it('a run losing its worker right after starting is queued again after a growing back-off, then failed; one that ran a while is taken over at once', async () => {
    await worker?.stop();
    worker = undefined;
    const kinds = ['test.resumable'];
    const a = (await enqueueJob({ pool: db.pool, jobs, env }, { kind: 'test.resumable', params: {} })).runId;
    const waitOf = async () => Number((await db.pool.query(`select extract(epoch from start_after - now()) as s from pgboss.job j join job_runs r on r.queue_job_id = j.id where r.id = $1`, [a])).rows[0].s);
    const loseQuickly = async () => {
      // the backoff has passed (the test does not wait it out); a worker claims the run and dies at once
      await db.pool.query(`update pgboss.job j set start_after = now() from job_runs r where r.id = $1 and j.id = r.queue_job_id`, [a]);
      expect((await claimRuns(db.pool, 'gone:3:dead', 10)).runs.map((r) => r.runId)).toEqual([a]);
      await db.pool.query(`update job_runs set heartbeat_at = now() - interval '1 hour' where id = $1`, [a]);
      return reapStaleRuns(db.pool, null, 30_000, { resumeKinds: kinds });
    };
    for (let attempt = 1; attempt < MAX_QUICK_RESUME_ATTEMPTS; attempt++) {
      expect((await loseQuickly()).resumed).toEqual([a]);
      const wait = await waitOf();
      expect(wait).toBeGreaterThan(5 * 2 ** (attempt - 1) - 2);
      expect(wait).toBeLessThanOrEqual(5 * 2 ** (attempt - 1));
    }
    expect((await loseQuickly()).failed).toEqual([a]);
    expect(await getJobRun(db.pool, a)).toMatchObject({ status: 'failed', attempts: MAX_QUICK_RESUME_ATTEMPTS, error: expect.stringMatching(/attempt 5 lost its worker within 60 s of starting again: failed rather than queued again/) });

    // a run past the count whose attempt had been running for an hour: taken over at once
    const b = (await enqueueJob({ pool: db.pool, jobs, env }, { kind: 'test.resumable', params: {} })).runId;
    expect((await claimRuns(db.pool, 'gone:4:dead', 10)).runs.map((r) => r.runId)).toEqual([b]);
    await db.pool.query(`update job_runs set attempts = 9, started_at = now() - interval '2 hours', heartbeat_at = now() - interval '1 hour' where id = $1`, [b]);
    expect((await reapStaleRuns(db.pool, null, 30_000, { resumeKinds: kinds })).resumed).toEqual([b]);
    const started = Number((await db.pool.query(`select extract(epoch from start_after - now()) as s from pgboss.job j join job_runs r on r.queue_job_id = j.id where r.id = $1`, [b])).rows[0].s);
    expect(started).toBeLessThanOrEqual(0);
  }, 60_000);
});
