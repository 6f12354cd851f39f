// A native slice run whose target is the lake, onto an s3:// warehouse (s3rver), configured the way a
// user does it: TRIBUTARY_WAREHOUSE=s3://… plus AWS_* / TRIBUTARY_S3_* through parseEnv. In-process
// through the job handlers, then as a job on two real worker processes (TRIBUTARY_FANOUT=auto fans the
// slices out as `slices.slice` jobs, so the other worker's lake writer must get the S3 settings too).
// Each time: the lake table holds exactly the source's rows, every data file is in the bucket, reconcile
// says it matches, and a repeated or resumed run doubles nothing.
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseEnv, type Env } from '../config/env';
import { createConnection } from '../connections';
import { createJobRegistry, enqueueJob, listRunUnits } from '../jobs';
import type { JobContext } from '../jobs/types';
import { openLake, plainRow } from '../lake';
import { startS3, type TestS3 } from '../lake/test-s3';
import { silentLogger } from '../log';
import { createScratchDatabase, createTestDatabase, type TestDatabase } from '../testing/pg';
import { runEnded, waitForWorkers, workerProcesses } from '../testing/worker-processes';
import { slicesJobs, slicesReconcileJob, slicesResetJob, slicesRunJob } from './jobs';
import type { ReconcileReport } from './run/reconcile';
import { getSlices } from './run/state';
import { makeSource, queryFile, sql, tmpDir } from './run/test-fixtures';

const ROWS = 24_000;
const SLICES = 6;
let s3: TestS3;
let db: TestDatabase;
let src: { url: string; drop(): Promise<void> };
let dir: string;
/** The user's settings for the s3 warehouse, as environment variables (the workers get the same). */
let s3Vars: Record<string, string>;
let env: Env;
const jobs = createJobRegistry(slicesJobs);
const procs = workerProcesses({ databaseUrl: () => db.url, dataDir: () => dir, env: {} });

beforeAll(async () => {
  s3 = await startS3();
  db = await createTestDatabase();
  src = await createScratchDatabase('s3src');
  dir = await tmpDir();
  await makeSource(src.url, 'public.src', ROWS);
  await createConnection({ pool: db.pool, keys: { dataDir: dir } }, { name: 'src', kind: 'postgres', secrets: { url: src.url } });
  s3Vars = {
    TRIBUTARY_WAREHOUSE: s3.warehouse(), AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_REGION: 'us-east-1',
    TRIBUTARY_S3_ENDPOINT: s3.endpoint, TRIBUTARY_S3_FORCE_PATH_STYLE: 'true',
  };
  env = parseEnv({ TRIBUTARY_DATA_DIR: dir, ...s3Vars } as unknown as NodeJS.ProcessEnv);
});
afterEach(async () => { await procs.stopAll(); });
afterAll(async () => {
  await procs.stopAll();
  await db?.drop();
  await src?.drop();
  await s3?.stop();
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

const ctx = (): JobContext => ({
  jobs: createJobRegistry([]),
  runId: 'job-s3', pool: db.pool, logger: silentLogger, signal: new AbortController().signal, env, progress: () => {},
});
const runParams = (runId: number, table: string, extra: Record<string, unknown> = {}) => ({
  runId, executor: 'native', connection: 'src', targetLake: 'default', mergeKeys: 'id', deployWait: 0, batchRows: 1500, concurrency: 3,
  queryFileText: queryFile('public.src', `slices.${table}`, ROWS, SLICES), ...extra,
});

/** Every source row as one canonical line, in id order, and their digest. */
async function sourceDigest(): Promise<{ n: number; md5: string }> {
  const rows = await sql(src.url, `select id::text || '|' || grp || '|' || coalesce(amount::text, '~') || '|' || coalesce(note, '~') || '|' ||
    to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') l from public.src order by id`);
  return { n: rows.length, md5: crypto.createHash('md5').update(rows.map((r) => r.l).join('\n')).digest('hex') };
}

/** The lake table's rows as the same lines, and checks that the table and each of its data files live in the bucket. */
async function lakeDigest(table: string): Promise<{ n: number; md5: string }> {
  const lake = openLake({ pool: db.pool, warehouse: env.warehouse, s3: env.s3 });
  const t = await lake.loadTable(`slices.${table}`);
  expect(t.location.startsWith(`${env.warehouse}/`)).toBe(true);
  const files = await t.files();
  expect(files.length).toBeGreaterThan(0);
  const inBucket = new Set(await lake.storage.list(t.location));
  for (const f of files) {
    expect(f.path.startsWith(`${env.warehouse}/`), f.path).toBe(true);
    expect(inBucket.has(f.path), `${f.path} is in the bucket`).toBe(true);
  }
  const lines: [bigint, string][] = [];
  for await (const b of t.scan()) {
    for (let i = 0; i < b.numRows; i++) {
      const r = plainRow(b, i);
      lines.push([BigInt(String(r.id)), [r.id, r.grp, r.amount ?? '~', r.note ?? '~', r.created_at].join('|')]);
    }
  }
  lines.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return { n: lines.length, md5: crypto.createHash('md5').update(lines.map((l) => l[1]).join('\n')).digest('hex') };
}

async function expectLakeEqualsSource(table: string): Promise<void> {
  const want = await sourceDigest();
  expect(want.n).toBe(ROWS);
  expect(await lakeDigest(table)).toEqual(want);
}

async function expectReconcileMatches(runId: number): Promise<void> {
  const rec = await slicesReconcileJob.run(ctx(), { runId, connection: 'src', targetLake: 'default' }) as ReconcileReport;
  expect(rec.slices).toHaveLength(SLICES);
  for (const s of rec.slices) expect(s, `slice ${s.slice}`).toMatchObject({ sourceCount: ROWS / SLICES, targetCount: ROWS / SLICES, delta: 0 });
  expect(rec.total).toEqual({ source: ROWS, target: ROWS, delta: 0 });
}

/** Nothing written under the data folder but the run's own bookkeeping: no parquet left behind locally. */
async function expectNoLocalParquet(): Promise<void> {
  const local = await fs.readdir(dir, { recursive: true }).catch(() => [] as string[]);
  expect(local.filter((f) => String(f).endsWith('.parquet')).map((f) => path.join(dir, String(f)))).toEqual([]);
}

describe('a native slice run into the lake on an s3:// warehouse', () => {
  it('in-process: the lake equals the source; reconcile matches; a forced re-run and a resumed slice double nothing', async () => {
    const r = await slicesRunJob.run(ctx(), slicesRunJob.payload.parse(runParams(1, 's3_inproc'))) as { verdict: string };
    expect(r.verdict).toBe('FINISHED');
    await expectLakeEqualsSource('s3_inproc');
    await expectReconcileMatches(1);
    await expectNoLocalParquet();

    // the same run again from scratch: every slice merges over its own keys
    const again = await slicesRunJob.run(ctx(), slicesRunJob.payload.parse(runParams(1, 's3_inproc', { forceFresh: true }))) as { verdict: string };
    expect(again.verdict).toBe('FINISHED');
    await expectLakeEqualsSource('s3_inproc');

    // one slice failed and re-queued: a resume copies only it, over its own rows
    await db.pool.query(`update striim_orchestration set status = 'FAILED', attempts = 1 where uniquerunid = 1 and roworder = 2`);
    expect(await slicesResetJob.run(ctx(), { runId: 1 })).toMatchObject({ requeued: 1 });
    const resumed = await slicesRunJob.run(ctx(), slicesRunJob.payload.parse({ runId: 1, executor: 'native', connection: 'src', targetLake: 'default', mergeKeys: 'id', deployWait: 0, batchRows: 1500 })) as { verdict: string; mode: string };
    expect(resumed).toMatchObject({ verdict: 'FINISHED', mode: 'resume' });
    expect((await getSlices(db.pool, 1)).map((x) => x.status)).toEqual(Array(SLICES).fill('COMPLETED'));
    await expectLakeEqualsSource('s3_inproc');
    await expectReconcileMatches(1);
  }, 300_000);

  it('as a job on two worker processes with the s3 settings: both run slices; the lake equals the source; reconcile matches', async () => {
    const ws = [procs.start(s3Vars), procs.start(s3Vars)];
    await waitForWorkers(db.pool, 2);
    const { runId: parent } = await enqueueJob({ pool: db.pool, jobs, env }, { kind: 'slices.run', createdBy: 'test', params: runParams(2, 's3_workers') });
    const run = await runEnded(db.pool, parent);
    expect(run.error).toBeNull();
    const units = await listRunUnits(db.pool, parent);
    expect(units.filter((u) => u.status !== 'succeeded').map((u) => `${u.unit} on ${u.workerId}: ${u.status} ${u.error ?? ''}`)).toEqual([]);
    const failed = (await getSlices(db.pool, 2)).filter((x) => x.status !== 'COMPLETED');
    expect(failed.map((x) => `slice ${x.roworder}: ${x.status} ${x.notes ?? ''}`)).toEqual([]);
    expect((run.result as { verdict: string }).verdict).toBe('FINISHED');
    const ok = units.filter((u) => u.status === 'succeeded');
    expect(new Set(ok.map((u) => u.unit)).size).toBe(SLICES);
    // the slices ran on both workers: the one that is not the coordinator wrote to the bucket with its own settings
    const pids = new Set(ok.map((u) => u.workerId!.split(':')[1]));
    for (const w of ws) expect(pids, `worker ${w.pid} ran some slices`).toContain(String(w.pid));
    await expectLakeEqualsSource('s3_workers');
    await expectReconcileMatches(2);
    await expectNoLocalParquet();
  }, 300_000);
});
