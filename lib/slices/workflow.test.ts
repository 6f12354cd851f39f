// The panel's slices workflow through the job handlers, against real Postgres
// databases and a real lake folder: split registers a run, a native run of it
// copies every row, reconcile counts the target per slice (Postgres and lake).
import fs from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseEnv } from '../config/env';
import { createConnection } from '../connections';
import type { JobContext } from '../jobs/types';
import { createJobRegistry } from '../jobs/registry';
import { validateJob } from '../jobs/enqueue';
import { silentLogger } from '../log';
import type { TestDatabase } from '../testing/pg';
import { slicesJobs, slicesReconcileJob, slicesRunJob } from './jobs';
import { splitJob } from './planning/jobs';
import type { ReconcileReport } from './run/reconcile';
import { sql } from './run/test-fixtures';
import { useSliceDatabases } from '../testing/slice-databases';

const ROWS = 12_000;
let db: TestDatabase;
let src: { url: string; drop(): Promise<void> };
let tgt: { url: string; drop(): Promise<void> };
let dir: string;
const fx = useSliceDatabases({ rows: ROWS, connections: true });
beforeAll(() => { ({ db, src, tgt, dir } = fx); });

const ctx = (): JobContext => ({
  jobs: createJobRegistry([]),
  runId: 'job-w', pool: db.pool, logger: silentLogger, signal: new AbortController().signal,
  env: parseEnv({ TRIBUTARY_DATA_DIR: dir } as unknown as NodeJS.ProcessEnv), progress: () => {},
});
const fingerprint = `select count(*)::int n, sum(amount)::text s, md5(string_agg(id || ':' || coalesce(note, '~') || ':' || created_at::text, ',' order by id)) h`;
const split = (runId: number, target: string, strategy: 'column' | 'rowid' = 'column') => splitJob.run(ctx(), splitJob.payload.parse({
  query: 'SELECT s.* FROM public.src s WHERE ~SPLIT~', table: 'public.src', target, strategy, ...(strategy === 'column' ? { column: 'id' } : {}), chunks: 4, runId, connection: 'src',
})) as Promise<{ slices: number; registered: number }>;
const runOf = async (runId: number) => (await db.pool.query('select generation, executor, verdict from slice_runs where run_id = $1', [runId])).rows[0];

describe('split, then a native run, then reconcile (job handlers)', () => {
  it('split registers run 1; a native run of it succeeds and the target equals the source', async () => {
    const s = await split(1, 'public.tgt');
    expect(s.registered).toBe(s.slices);
    expect(s.slices).toBeGreaterThanOrEqual(2);
    // Registered, never started: the split chose no executor the run must keep.
    expect(await runOf(1)).toMatchObject({ generation: 1, verdict: null });

    const r = await slicesRunJob.run(ctx(), slicesRunJob.payload.parse({ runId: 1, executor: 'native', connection: 'src', targetConnection: 'tgt', deployWait: 0 })) as { verdict: string; mode: string; watermark: { label: string } | null };
    expect(r).toMatchObject({ verdict: 'FINISHED', mode: 'resume' });
    // Its first start captured the watermark, as a fresh run does.
    expect(r.watermark?.label).toBe('PostgreSQL WAL LSN');
    expect((await sql(tgt.url, `${fingerprint} from public.tgt`))[0]).toEqual((await sql(src.url, `${fingerprint} from public.src`))[0]);
    // One registration: generation 1, now a native run.
    expect(await runOf(1)).toEqual({ generation: 1, executor: 'native', verdict: 'FINISHED' });
    const slices = (await db.pool.query('select executor, status from striim_orchestration where uniquerunid = 1')).rows;
    expect(slices.every((x) => x.executor === 'native' && x.status === 'COMPLETED')).toBe(true);

    const rec = await slicesReconcileJob.run(ctx(), { runId: 1, connection: 'src', targetConnection: 'tgt' }) as ReconcileReport;
    expect(rec.slices.map((x) => x.delta)).toEqual(rec.slices.map(() => 0));
    expect(rec.total).toEqual({ source: ROWS, target: ROWS, delta: 0 });
  });

  it('a run that has started keeps its executor: another one is refused (409) and nothing changes', async () => {
    await split(2, 'public.tgt');
    // One slice left NEW once (a Striim attempt that failed).
    await db.pool.query(`update striim_orchestration set status = 'FAILED', attempts = 1, started_datetime = now() where uniquerunid = 2 and roworder = 1`);
    const p = slicesRunJob.payload.parse({ runId: 2, executor: 'native', connection: 'src', targetConnection: 'tgt' });
    await expect(slicesRunJob.run(ctx(), p)).rejects.toMatchObject({
      code: 'conflict', message: expect.stringMatching(/run 2 was started with --executor striim; resume it with --executor striim/),
    });
    expect(await runOf(2)).toMatchObject({ executor: 'striim', generation: 1 });
  });

  it('a fresh slices.run (no split) is generation 1: the run lock row is no registration', async () => {
    const lines = (await fs.readFile(path.join(dir, 'runs', '1', 'queryfile.txt'), 'utf8'));
    const r = await slicesRunJob.run(ctx(), slicesRunJob.payload.parse({ runId: 3, executor: 'native', connection: 'src', targetConnection: 'tgt', queryFileText: lines, deployWait: 0 })) as { mode: string; verdict: string };
    expect(r).toMatchObject({ mode: 'fresh', verdict: 'FINISHED' });
    expect((await runOf(3)).generation).toBe(1);
  });

  it('reconcile against a lake target counts each slice in the lake table, equal to the source', async () => {
    await split(4, 'slices.lake_src');
    const r = await slicesRunJob.run(ctx(), slicesRunJob.payload.parse({ runId: 4, executor: 'native', connection: 'src', targetLake: 'default', mergeKeys: 'id', deployWait: 0 })) as { verdict: string };
    expect(r.verdict).toBe('FINISHED');
    const rec = await slicesReconcileJob.run(ctx(), { runId: 4, connection: 'src', targetLake: 'default' }) as ReconcileReport;
    expect(rec.slices.length).toBeGreaterThanOrEqual(2);
    for (const s of rec.slices) {
      expect(s.sourceCount).toBeGreaterThan(0);
      expect(s.targetCount).toBe(s.sourceCount);
      expect(s.delta).toBe(0);
    }
    expect(rec.slices.reduce((a, s) => a + s.targetCount!, 0)).toBe(ROWS);
    expect(rec.total).toEqual({ source: ROWS, target: ROWS, delta: 0 });
  });

  it('a run to the lake merges on the table\'s primary key when none is given; reconcile with no endpoints uses the run\'s own', async () => {
    await split(6, 'slices.lake_pk');
    const r = await slicesRunJob.run(ctx(), slicesRunJob.payload.parse({ runId: 6, executor: 'native', connection: 'src', targetLake: 'default', deployWait: 0 })) as { verdict: string };
    expect(r.verdict).toBe('FINISHED');
    expect((await db.pool.query(`select settings->'mergeKeys' k, settings->'connections'->>'source' src from slice_runs where run_id = 6`)).rows[0]).toEqual({ k: ['id'], src: 'src' });
    // No connection, no target: the run's source (a PostgreSQL one, whose watermark is an LSN, not an SCN) and its lake.
    const rec = await slicesReconcileJob.run(ctx(), { runId: 6 }) as ReconcileReport;
    expect(rec.total).toEqual({ source: ROWS, target: ROWS, delta: 0 });
    expect(rec.slices.every((x) => x.delta === 0 && !/^SELECT.*AS OF SCN/.test(x.sourceSql))).toBe(true);
  });

  it('a run to the lake over a table without a primary key asks for merge keys, naming the table', async () => {
    await sql(src.url, 'create table public.nokey as select id, note from public.src limit 50');
    await splitJob.run(ctx(), splitJob.payload.parse({ query: 'SELECT n.* FROM public.nokey n WHERE ~SPLIT~', table: 'public.nokey', target: 'slices.nokey', strategy: 'column', column: 'id', chunks: 2, runId: 7, connection: 'src' }));
    const r = await slicesRunJob.run(ctx(), slicesRunJob.payload.parse({ runId: 7, executor: 'native', connection: 'src', targetLake: 'default', deployWait: 0 })).then(() => null, (e: Error) => e);
    expect(r?.message).toMatch(/public\.nokey has no primary key: give the merge keys/);
  });

  it('a physical (ctid) split against the lake: no per-slice count, said why; totals still compared', async () => {
    await split(5, 'slices.lake_phys', 'rowid');
    await slicesRunJob.run(ctx(), slicesRunJob.payload.parse({ runId: 5, executor: 'native', connection: 'src', targetLake: 'default', mergeKeys: 'id', deployWait: 0 }));
    const rec = await slicesReconcileJob.run(ctx(), { runId: 5, connection: 'src', targetLake: 'default' }) as ReconcileReport;
    expect(rec.slices.every((s) => s.targetCount === null && /compare totals/.test(s.note ?? ''))).toBe(true);
    expect(rec.total).toEqual({ source: ROWS, target: ROWS, delta: 0 });
  });
});

describe('slices.run payloads', () => {
  const jobs = createJobRegistry(slicesJobs);
  it('takes a connection, and rejects unknown keys naming them', () => {
    expect(validateJob(jobs, { kind: 'slices.run', params: { runId: 1, executor: 'native', connection: 'src', targetConnection: 'tgt', striimConnection: 'env:striim' } }).params)
      .toMatchObject({ connection: 'src' });
    for (const params of [{ runId: 1, bogus: true }, { runId: 1, sourceUrl: 'postgres://x' }, { runId: 1, connection: 'src', targetUrl: 'postgres://y' }]) {
      const key = Object.keys(params).find((k) => !['runId', 'connection'].includes(k))!;
      expect(() => validateJob(jobs, { kind: 'slices.run', params })).toThrow(expect.objectContaining({ code: 'validation', field: `params.${key}` }));
    }
  });
});
