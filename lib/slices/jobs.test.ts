import { beforeAll, describe, expect, it } from 'vitest';
import { parseEnv } from '../config/env';
import { createConnection } from '../connections';
import type { JobContext } from '../jobs/types';
import { createJobRegistry } from '../jobs/registry';
import { silentLogger } from '../log';
import type { TestDatabase } from '../testing/pg';
import { slicesClearJob, slicesJobs, slicesReconcileJob, slicesResetJob, slicesRunJob } from './jobs';
import { queryFile } from './run/test-fixtures';
import { useSliceDatabases } from '../testing/slice-databases';

let db: TestDatabase;
let src: { url: string; drop(): Promise<void> };
let tgt: { url: string; drop(): Promise<void> };
let dir: string;
const fx = useSliceDatabases({ rows: 10_000, connections: true });
beforeAll(() => { ({ db, src, tgt, dir } = fx); });

const ctx = (progress: [number, number | undefined][] = []): JobContext => ({
  jobs: createJobRegistry([]),
  runId: 'job-1', pool: db.pool, logger: silentLogger, signal: new AbortController().signal,
  env: parseEnv({ TRIBUTARY_DATA_DIR: dir } as unknown as NodeJS.ProcessEnv), progress: (d, t) => progress.push([d, t]),
});

describe('slices jobs', () => {
  it('lists run/reset/clear/reconcile (and the planning kinds) with payload validation', () => {
    expect(slicesJobs.map((j) => j.kind)).toEqual(expect.arrayContaining(['slices.run', 'slices.reset', 'slices.clear', 'slices.reconcile']));
    expect(slicesRunJob.payload.safeParse({ runId: 0 }).success).toBe(false);
    expect(slicesRunJob.payload.safeParse({ runId: 3, executor: 'native', concurrency: 2 }).success).toBe(true);
  });

  it('runs the native executor as a job with progress, then reconciles, resets and clears', async () => {
    const progress: [number, number | undefined][] = [];
    const p = slicesRunJob.payload.parse({ runId: 31, executor: 'native', concurrency: 2, connection: 'src', targetConnection: 'tgt', queryFileText: queryFile('public.src', 'public.tgt', 10_000, 3), deployWait: 0 });
    const r = await slicesRunJob.run(ctx(progress), p) as { verdict: string; watermark: { label: string } };
    expect(r.verdict).toBe('FINISHED');
    expect(r.watermark.label).toBe('PostgreSQL WAL LSN');
    expect(progress.at(-1)).toEqual([3, 3]);
    const rec = await slicesReconcileJob.run(ctx(), { runId: 31, connection: 'src', targetConnection: 'tgt' }) as { total: unknown };
    expect(rec.total).toEqual({ source: 10_000, target: 10_000, delta: 0 });
    expect(await slicesResetJob.run(ctx(), { runId: 31 })).toEqual({ requeued: 0, cleaned: [] });
    expect(((await slicesClearJob.run(ctx(), { runId: 31, hard: true })) as { rows: number }).rows).toBe(3);
  });
});
