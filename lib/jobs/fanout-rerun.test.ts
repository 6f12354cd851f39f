import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEnv } from '../config/env';
import { silentLogger } from '../log';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { fanOut, listRunUnits, type FanoutOutcome } from './fanout';
import { createJobRegistry } from './registry';
import { systemJobs } from './system-check';

// A coordinator run handed back to the queue (an outage, a worker that stopped) runs again from the
// start with the same run id: its units must be queued afresh — not as a second "attempt 1", which
// job_units refuses ("duplicate key value violates unique constraint job_units_pkey") — and the
// first execution's units still queued must not run on.
let db: TestDatabase;
beforeAll(async () => { db = await createTestDatabase(); });
afterAll(async () => { await db?.drop(); });

describe('a fanned-out coordinator that runs again', () => {
  it('queues fresh attempts after the earlier ones and stops those still queued', async () => {
    const parent = crypto.randomUUID();
    await db.pool.query(`insert into job_runs (id, kind, status) values ($1, 'etl.run', 'running')`, [parent]);
    const units = ['a', 'b'].map((key) => ({ key, kind: 'system.check', params: () => ({}) }));
    const deps = { pool: db.pool, jobs: createJobRegistry(systemJobs), env: parseEnv({} as NodeJS.ProcessEnv), parentRunId: parent, logger: silentLogger, pollMs: 20 };

    // The first execution queues both units and stops (its process died) before any ran.
    const first = new AbortController();
    const firstDone = fanOut({ ...deps, signal: first.signal }, units, () => {});
    await (async () => { for (;;) { if ((await listRunUnits(db.pool, parent)).length === 2) return; await new Promise((r) => setTimeout(r, 20)); } })();
    // Unlike a clean stop, a dead process cancels nothing: put its units back as it would leave them.
    first.abort(new Error('worker died'));
    await firstDone.catch(() => {});
    await db.pool.query(`update job_runs set status = 'queued', finished_at = null, error = null where id in (select child_run_id from job_units where parent_run_id = $1)`, [parent]);

    // The second execution: every unit it queues is attempt 2, and the first's are cancelled.
    const outcomes: FanoutOutcome[] = [];
    const runInline = async (runId: string) => {
      await db.pool.query(`update job_runs set status = 'succeeded', worker_id = 'test:1:a', result = '{}', finished_at = now() where id = $1`, [runId]);
      return true;
    };
    await fanOut({ ...deps, runInline, helpAfterMs: 0 }, units, (o) => { outcomes.push(o); });
    expect(outcomes.map((o) => [o.key, o.ok, o.attempt]).sort()).toEqual([['a', true, 2], ['b', true, 2]]);
    const all = await listRunUnits(db.pool, parent);
    expect(all.map((u) => [u.unit, u.attempt, u.status])).toEqual([['a', 1, 'cancelled'], ['a', 2, 'succeeded'], ['b', 1, 'cancelled'], ['b', 2, 'succeeded']]);
  });
});
