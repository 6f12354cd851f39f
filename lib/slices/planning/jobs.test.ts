import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEnv } from '../../config/env';
import type { JobContext } from '../../jobs/types';
import { createConnection } from '../../connections';
import { createJobRegistry } from '../../jobs/registry';
import { silentLogger } from '../../log';
import { createScratchDatabase, createTestDatabase, type TestDatabase } from '../../testing/pg';
import { planningJobs, probeJob, splitJob } from './jobs';
import { parseSplitRequest } from './actions';

let src: { url: string; drop(): Promise<void> };
let db: TestDatabase;
let dataDir: string;

beforeAll(async () => {
  src = await createScratchDatabase('src');
  const c = new pg.Client({ connectionString: src.url });
  await c.connect();
  await c.query(`CREATE TABLE public.t (id int PRIMARY KEY, v text); INSERT INTO public.t SELECT g, md5(g::text) FROM generate_series(1, 20000) g; ANALYZE public.t;`);
  await c.end();
  db = await createTestDatabase();
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'planning-jobs-'));
  // Jobs name their source by connection; they never carry a URL.
  await createConnection({ pool: db.pool, keys: { dataDir } }, { name: 'src', kind: 'postgres', secrets: { url: src.url } });
});
afterAll(async () => {
  await db?.drop();
  await src?.drop();
  await fs.rm(dataDir, { recursive: true, force: true });
});

const ctx = (): JobContext => ({
  jobs: createJobRegistry([]), runId: 'job-1', pool: db.pool, logger: silentLogger, signal: new AbortController().signal,
  env: { ...parseEnv({} as NodeJS.ProcessEnv), dataDir }, progress: () => {},
});

describe('planning jobs', () => {
  it('exports slices.probe and slices.split', () => {
    expect(planningJobs.map((j) => j.kind)).toEqual(['slices.probe', 'slices.split']);
    expect(splitJob.payload.safeParse({ table: 'public.t', target: 'A.T', runId: 0 }).success).toBe(false);
  });
  it('slices.split writes the run queryfile and registers; slices.probe stores a recommendation', async () => {
    const p = splitJob.payload.parse({ query: 'SELECT x.* FROM public.t x WHERE ~SPLIT~', table: 'public.t', target: 'PUBLIC.T_TGT', strategy: 'rowid', chunks: 4, runId: 9, connection: 'src' });
    const r = (await splitJob.run(ctx(), p)) as { file: string; slices: number; registered: number };
    expect(r.file).toBe(path.join(dataDir, 'runs', '9', 'queryfile.txt'));
    expect(r.registered).toBe(r.slices);
    expect((await fs.readFile(r.file, 'utf8')).trim().split('\n')).toHaveLength(r.slices);
    const q = probeJob.payload.parse({ query: 'SELECT x.* FROM public.t x WHERE ~SPLIT~', table: 'public.t', depth: 'lightweight', sampleRows: 1000, runId: 9, connection: 'src' });
    const rec = (await probeJob.run(ctx(), q)) as { file: string; recommendation: { chunk_count: number } };
    expect(rec.file).toBe(path.join(dataDir, 'runs', '9', 'probe_recommendation.json'));
    expect(rec.recommendation.chunk_count).toBeGreaterThanOrEqual(1);
  });
});

describe('planning jobs and the environment', () => {
  it('a job reads the environment-configured source by its built-in name env:source', async () => {
    const c: JobContext = { ...ctx(), env: { ...parseEnv({ SLICES_SOURCE_URL: src.url } as unknown as NodeJS.ProcessEnv), dataDir } };
    const p = splitJob.payload.parse({ query: 'SELECT x.* FROM public.t x WHERE ~SPLIT~', table: 'public.t', target: 'PUBLIC.T_TGT', strategy: 'rowid', chunks: 2, runId: 10, connection: 'env:source' });
    const r = (await splitJob.run(c, p)) as { slices: number; registered: number };
    expect(r.registered).toBe(r.slices);
    // and without a connection at all, env:source is the default
    const q = splitJob.payload.parse({ query: 'SELECT x.* FROM public.t x WHERE ~SPLIT~', table: 'public.t', target: 'PUBLIC.T_TGT', strategy: 'rowid', chunks: 2, runId: 11 });
    expect(((await splitJob.run(c, q)) as { registered: number }).registered).toBeGreaterThan(0);
  });
  it('a job names payload fields and the CLI names flags, each said at the source (no rewriting)', async () => {
    const raw = { query: 'SELECT x.* FROM public.t x WHERE ~SPLIT~', table: 'public.t', target: 'A.T', strategy: 'rowid' };
    await expect(parseSplitRequest(raw, {}, 'flag')).rejects.toMatchObject({
      field: 'chunks', message: '✗ --chunks N is required for --strategy rowid (run tributary slices probe for a recommendation)',
    });
    await expect(parseSplitRequest(raw, {}, 'param')).rejects.toMatchObject({
      field: 'params.chunks', message: 'slices: params.chunks N is required for params.strategy rowid (run tributary slices probe for a recommendation)',
    });
    await expect(parseSplitRequest({ ...raw, chunks: 2, asOfScn: 'x' }, {}, 'param')).rejects.toMatchObject({
      field: 'params.asOfScn', message: "slices: argument params.asOfScn: must be a positive integer SCN or 'current', got 'x'",
    });
    // Through the job: the template's own check names params.target, not --target.
    const p = splitJob.payload.parse({ ...raw, query: 'SELECT x.* FROM public.t x WHERE ~SPLIT~|A.T', chunks: 2, runId: 12, connection: 'src' });
    await expect(splitJob.run(ctx(), p)).rejects.toMatchObject({
      field: 'params.query', message: expect.stringMatching(/^slices: query template must not carry a \|TARGET suffix .* with split params\.target OWNER\.TABLE /),
    });
    const q = splitJob.payload.parse({ ...raw, table: 'public.other', chunks: 2, runId: 12, connection: 'src' });
    await expect(splitJob.run(ctx(), q)).rejects.toMatchObject({
      field: 'params.table', message: 'slices: table public.other not found after FROM/JOIN in the query template',
    });
  });
});
