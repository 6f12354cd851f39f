// Issue #20 (5): a run whose result (or error) Postgres cannot store — NUL
// in jsonb is refused with 22P05, in text with 22021 — ends at once as
// failed with that reason, instead of staying "running" until the reaper
// calls its worker dead. Its log lines with NUL are kept, escaped.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { waitFor } from '../testing/wait-for';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { createPrisma, type Db } from '../db/prisma';
import { parseEnv } from '../config/env';
import { silentLogger } from '../log';
import { createJobRegistry, enqueueJob, getJobRun, startWorker, type WorkerHandle } from './index';
import { defineJob } from './types';

let db: TestDatabase;
let prisma: Db;
let worker: WorkerHandle | null = null;
const jobs = createJobRegistry([
  defineJob({
    kind: 'test.nul_result', description: 'returns a result holding a NUL', payload: z.object({}),
    async run(ctx) { ctx.logger.info('row a\u0000b', { value: 'x\u0000y' }); return { rows: [{ text: 'a\u0000b' }] }; },
  }),
  defineJob({
    kind: 'test.nul_error', description: 'fails with a NUL in its message', payload: z.object({}),
    async run() { throw new Error('bad value a\u0000b'); },
  }),
]);
const env = parseEnv({ TRIBUTARY_DATA_DIR: path.join(process.cwd(), '.data-test-jobs-nul') } as unknown as NodeJS.ProcessEnv);

beforeAll(async () => {
  db = await createTestDatabase();
  prisma = createPrisma(db.url, { max: 2 });
  // A stale limit far beyond the test: only the worker itself can end these runs.
  worker = await startWorker({ jobs, pool: db.pool, env, logger: silentLogger, concurrency: 1, heartbeatMs: 300, staleAfterMs: 600_000 });
});
afterAll(async () => {
  await worker?.stop();
  await prisma.$disconnect();
  await db.drop();
});

describe('a result that cannot be stored', () => {
  it('fails the run at once, saying why, and keeps its log lines', async () => {
    const { runId } = await enqueueJob({ pool: db.pool, jobs, env }, { kind: 'test.nul_result' });
    const r = await waitFor('the run to end', async () => { const x = await getJobRun(db.pool, runId); return x && x.status !== 'queued' && x.status !== 'running' && x; }, 120_000);
    expect(r.status).toBe('failed');
    expect(r.error).toMatch(/result could not be stored .*SQLSTATE 22P05/);
    expect(r.finishedAt).not.toBeNull();
    expect(r.logs.map((l) => l.message)).toContain('row a\\0b');
  });

  it('an error message holding NUL still ends the run as failed', async () => {
    const { runId } = await enqueueJob({ pool: db.pool, jobs, env }, { kind: 'test.nul_error' });
    const r = await waitFor('the run to end', async () => { const x = await getJobRun(db.pool, runId); return x && x.status !== 'queued' && x.status !== 'running' && x; }, 120_000);
    expect(r.status).toBe('failed');
    expect(r.error).toContain('could not be stored');
    expect(r.error).toContain('bad value a\\0b');
  });
});
