import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEnv } from '../../config/env';
import { createJobRegistry, listRunUnits } from '../../jobs';
import { silentLogger } from '../../log';
import { createTestDatabase, type TestDatabase } from '../../testing/pg';
import { slicesJobs } from '../jobs';
import type { SliceExecutor } from './executor';
import { createFanoutExecutor } from './fanout-executor';
import type { SliceRow } from './state';

// The fanned-out native executor over a real queue (Postgres): a slice whose unit ran to a FAILED
// outcome (a lost lake merge race, a source error) is launched again by the orchestrator, and that
// launch must be a new unit — not a second "attempt 1" of the old one, which job_units refuses.
let db: TestDatabase;
beforeAll(async () => { db = await createTestDatabase(); });
afterAll(async () => { await db?.drop(); });

const local: SliceExecutor = {
  kind: 'native', snapshotId: null, placement: () => ({ namespace: null, appname: null }),
  launch: async () => { throw new Error('not used'); }, adopt: async () => null, liveRates: () => new Map(), close: async () => {},
};
const slice = { id: 7, roworder: 1, uniquerunid: 9, targettbl: 'slices.t', status: 'NEW', attempts: 0 } as SliceRow;

describe('fanout executor', () => {
  it('a slice launched again after a FAILED outcome runs as a unit of its own', async () => {
    const parent = crypto.randomUUID();
    await db.pool.query(`insert into job_runs (id, kind, status) values ($1, 'slices.run', 'running')`, [parent]);
    let runs = 0;
    // Stands in for the coordinator's worker: the first unit reports a failed slice, the next one a copied slice.
    const runInline = async (runId: string) => {
      const result = ++runs === 1 ? { status: 'FAILED', notes: 'lost a race' } : { status: 'COMPLETED', notes: 'copied' };
      await db.pool.query(`update job_runs set status = 'succeeded', worker_id = 'test:1:a', result = $2, finished_at = now() where id = $1`, [runId, JSON.stringify(result)]);
      return true;
    };
    const ex = createFanoutExecutor({
      pool: db.pool, jobs: createJobRegistry(slicesJobs), env: parseEnv({} as NodeJS.ProcessEnv), parentRunId: parent, logger: silentLogger,
      runInline, helpAfterMs: 0, pollMs: 20, request: { runId: 9, executor: 'native' }, local,
    });
    try {
      expect(await (await ex.launch(slice)).done).toMatchObject({ status: 'FAILED', notes: expect.stringContaining('lost a race') });
      expect(await (await ex.launch({ ...slice, status: 'FAILED', attempts: 1 })).done).toMatchObject({ status: 'COMPLETED', notes: 'copied (worker test:1:a)' });
    } finally { await ex.close(); }
    const units = await listRunUnits(db.pool, parent);
    expect(units.map((u) => [u.unit, u.attempt, u.status])).toEqual([['slice-7', 1, 'succeeded'], ['slice-7#2', 1, 'succeeded']]);
  });
});
