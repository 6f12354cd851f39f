// Truthful outcomes (issue #15), from the engine's verdict to the line the
// Runs page shows: a run with nothing to do succeeds with a visible warning, a
// plan whose units errored fails with its per-unit result, a failed DQ run
// shows its error. Real Postgres, the real etl.run / dq.run handlers.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEnv } from '@/lib/config/env';
import { createConnection } from '@/lib/connections';
import { createJobRegistry, type JobContext } from '@/lib/jobs';
import { silentLogger } from '@/lib/log';
import { createTestDatabase, type TestDatabase } from '@/lib/testing/pg';
import { runEtlJob } from '@/lib/etl/job-run';
import { runDqJob } from '@/lib/dq/job-run';
import { EtlRequest } from '@/lib/etl/request';
import { DqRequest } from '@/lib/dq/request';
import { failedUnits, runSummary, runWarnings } from './run-summary';

let db: TestDatabase;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runs-outcomes-'));
const SECRET = 'outcomes-secret-0123456789abcdef';
const tablesFile = path.join(dir, 'tables.json');
const env = () => parseEnv({ TRIBUTARY_DATA_DIR: dir, TRIBUTARY_TABLES_FILE: tablesFile, TRIBUTARY_SECRET: SECRET, TRIBUTARY_WAREHOUSE: `file://${path.join(dir, 'lake')}` } as unknown as NodeJS.ProcessEnv);
const ctx = (runId: string): JobContext => ({
  jobs: createJobRegistry([]), runId, pool: db.pool, logger: silentLogger,
  signal: new AbortController().signal, env: env(), progress: () => {},
});
/** What the worker stores for a run: the handler's result, or the partial result a failure carries. */
async function outcome(p: Promise<unknown>): Promise<{ status: string; error: string | null; result: unknown }> {
  try { return { status: 'succeeded', error: null, result: await p }; } catch (e) {
    return { status: 'failed', error: (e as Error).message, result: (e as { result?: unknown }).result ?? null };
  }
}

beforeAll(async () => {
  db = await createTestDatabase();
  fs.writeFileSync(tablesFile, JSON.stringify([{ table: 'SHOP.NO_SUCH_TABLE', unique_key: 'ID', cdc_column: 'UPDATED_AT' }]));
});
afterAll(async () => { await db?.drop(); fs.rmSync(dir, { recursive: true, force: true }); });

describe('run outcomes on the Runs page', () => {
  // Before any branch exists (the next tests add one).
  it('a failed DQ run: failed, with its error for the page to show', async () => {
    const params = DqRequest.parse({});
    const o = await outcome(runDqJob(ctx('dq'), params));
    expect(o.status).toBe('failed');
    expect(o.error).toMatch(/^dq: no branches configured/);
    expect(runSummary({ kind: 'dq.run', params, result: o.result })).toBe('tables all · branches all');
  });

  it('0 units (no branches configured): succeeded, with a visible warning', async () => {
    const params = EtlRequest.parse({ mode: 'INCREMENTAL' });
    const o = await outcome(runEtlJob(ctx('zero'), params));
    expect(o.status).toBe('succeeded');
    expect(runWarnings(o)).toEqual([expect.stringMatching(/^nothing to do: no branches configured/)]);
    expect(runSummary({ kind: 'etl.run', params, result: o.result })).toBe('INCREMENTAL · branches all · tables all · 0 rows · units 0 ok / 0 failed');
  });

  it('plan-only whose units errored: failed, each unit with its error', async () => {
    // A real branch (this test's own database), where the table does not exist.
    await createConnection({ pool: db.pool, keys: { secret: SECRET, dataDir: dir } }, { name: 'north', kind: 'postgres', isBranch: true, branchKey: 'north', secrets: { url: db.url } });
    const params = EtlRequest.parse({ mode: 'INITIAL', plan: true });
    const o = await outcome(runEtlJob(ctx('plan'), params));
    expect(o.status).toBe('failed');
    expect(o.error).toMatch(/etl: 1 of 1 units did not succeed/);
    const bad = failedUnits(o);
    expect(bad).toHaveLength(1);
    expect(bad[0]).toMatchObject({ table: 'no_such_table', branch: 'north' });
    expect(String(bad[0].error)).toMatch(/does not exist/);
    expect(runSummary({ kind: 'etl.run', params, result: o.result })).toBe('INITIAL · plan only · branches all · tables all · units 0 ok / 1 failed');
  });

});
