import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { lakeRowsWithoutLoadTimes } from './test-lake-readers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEnv, type Env } from '../config/env';
import { localPaths } from '../config/data-path';
import { createConnection } from '../connections';
import { createJobRegistry, enqueueJob, listRunUnits } from '../jobs';
import { openLake, type Lake, type LakeTable } from '../lake';
import { startS3, type TestS3 } from '../lake/test-s3';
import { silentLogger } from '../log';
import { FIXTURE_TABLES, changeBranch, seedBranch } from '../testing/branch-fixtures';
import { createScratchDatabase, createTestDatabase, type TestDatabase } from '../testing/pg';
import { runEnded, waitForWorkers, workerProcesses } from '../testing/worker-processes';
import { executeEtl } from './execute';
import { etlJobs } from './jobs';
import { EtlRequest } from './request';

// Three worker processes as on three machines: one database and one object store (s3rver) shared,
// but each with a data folder of its own, so nothing a unit stages on its machine can reach the
// coordinator except through the bucket. The default TRIBUTARY_FANOUT (auto) fans the runs out.
// INITIAL then INCREMENTAL; the lake must equal a single-process run of the same data onto the same
// store, hold every file in the bucket and leave no unit upload behind (uncommitted or merged).
const N = 4;
const SECRET = 'fanout-s3-test-secret-0123456789';
let s3: TestS3;
let db: TestDatabase;
/** The single-process reference's own database: watermarks are per (table, branch), so it cannot share the workers' control tables. */
let refDb: TestDatabase;
let tmp: string;
let env: Env;
let warehouse: string;
const scratch: { url: string; drop(): Promise<void> }[] = [];
const jobs = createJobRegistry(etlJobs);
const LAKE_TABLES = ['customers', 'products', 'orders', 'appointments', 'order_lines', 'orders_enriched'];
const workerDirs = ['m1', 'm2', 'm3'];

const s3Env = (dataDir: string): Record<string, string> => ({
  TRIBUTARY_DATA_DIR: dataDir, TRIBUTARY_SECRET: SECRET, TRIBUTARY_WAREHOUSE: warehouse, AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER',
  AWS_REGION: 'us-east-1', TRIBUTARY_S3_ENDPOINT: s3.endpoint, TRIBUTARY_S3_FORCE_PATH_STYLE: 'true',
});
const procs = workerProcesses({ databaseUrl: () => db.url, dataDir: () => path.join(tmp, 'm1') });

beforeAll(async () => {
  s3 = await startS3();
  [db, refDb] = await Promise.all([createTestDatabase(), createTestDatabase()]);
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'etl-fanout-s3-'));
  warehouse = s3.warehouse();
  // the test process's own settings (it enqueues, and runs the single-process reference)
  env = parseEnv(s3Env(path.join(tmp, 'reference')) as unknown as NodeJS.ProcessEnv);
  for (let i = 0; i < N; i++) {
    const s = await createScratchDatabase('fans3');
    scratch.push(s);
    await seedBranch(s.url, { index: i, customers: 60, orders: 400 });
    for (const d of [db, refDb]) await createConnection({ pool: d.pool, keys: { secret: SECRET, dataDir: env.dataDir } }, { name: `b${i}`, kind: 'postgres', isBranch: true, branchKey: `b${i}`, secrets: { url: s.url } });
  }
}, 120_000);

afterAll(async () => {
  await procs.stopAll();
  for (const s of scratch) await s.drop();
  await db?.drop();
  await refDb?.drop();
  await s3?.stop();
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

const lake = (d = db): Lake => openLake({ pool: d.pool, warehouse: env.warehouse, s3: env.s3 });
const request = (mode: 'INITIAL' | 'INCREMENTAL', namespace: string) => ({ mode, namespace, tablesJson: FIXTURE_TABLES, fetchBatchSize: 200, retries: 0 });

/** Objects under the table's data folder that no snapshot still in its metadata references. */
async function unreferenced(t: LakeTable): Promise<string[]> {
  const referenced = new Set<string>();
  for (const s of t.snapshots()) for (const f of await t.files(BigInt(s['snapshot-id']))) referenced.add(f.path);
  return (await lake().storage.list(`${t.location}/data`)).filter((u) => !referenced.has(u));
}

async function runOnWorkers(mode: 'INITIAL' | 'INCREMENTAL') {
  await waitForWorkers(db.pool, workerDirs.length);
  const { runId } = await enqueueJob({ pool: db.pool, jobs, env }, { kind: 'etl.run', params: request(mode, 'fan'), createdBy: 'test' });
  const run = await runEnded(db.pool, runId);
  expect(run.error).toBeNull();
  expect(run.status).toBe('succeeded');
  const units = (await listRunUnits(db.pool, runId)).filter((u) => u.status === 'succeeded');
  expect(new Set(units.map((u) => u.unit)).size).toBe(N * LAKE_TABLES.length);
  expect(new Set(units.map((u) => u.workerId)).size, 'units ran on more than one worker').toBeGreaterThan(1);
}

async function runInProcess(mode: 'INITIAL' | 'INCREMENTAL') {
  const r = await executeEtl({ pool: refDb.pool, env, logger: silentLogger, paths: localPaths }, EtlRequest.parse(request(mode, 'one')));
  expect(r.units.filter((u) => u.status !== 'SUCCESS').map((u) => `${u.table}@${u.branch}: ${u.error}`)).toEqual([]);
}

async function expectSameLakes(): Promise<void> {
  for (const name of LAKE_TABLES) {
    const fan = await lake().loadTable(`fan.${name}`);
    const one = await lake(refDb).loadTable(`one.${name}`);
    expect((await fan.files()).every((f) => f.path.startsWith(`${fan.location}/data/`)), `${name}: every file in the bucket`).toBe(true);
    expect(await lakeRowsWithoutLoadTimes(fan), name).toEqual(await lakeRowsWithoutLoadTimes(one));
    expect(await unreferenced(fan), `${name}: no unit upload left behind`).toEqual([]);
  }
  for (const d of workerDirs) {
    const left = await fs.readdir(path.join(tmp, d), { recursive: true }).catch(() => [] as string[]);
    expect(left.filter((f) => String(f).endsWith('.parquet')), `${d} staged nothing that stayed`).toEqual([]);
  }
}

async function expectCustomersEqualSources(): Promise<void> {
  const want: string[] = [];
  for (let i = 0; i < N; i++) {
    const c = new pg.Client({ connectionString: scratch[i].url });
    await c.connect();
    try { for (const r of (await c.query('SELECT customer_id::text AS id, name FROM oasis.customers')).rows) want.push(`b${i}|${r.id}|${r.name}`); } finally { await c.end(); }
  }
  const got = (await lakeRowsWithoutLoadTimes(await lake().loadTable('fan.customers'))).map((j) => JSON.parse(j) as Record<string, unknown>).map((r) => `${r.BRANCH_ID}|${r.customer_id}|${r.name}`);
  expect(got.sort()).toEqual(want.sort());
}

describe('an ETL run fanned out over workers with separate data folders onto an s3:// warehouse', () => {
  it('INITIAL then INCREMENTAL: units travel through the bucket; the lake equals a single-process run and the sources', async () => {
    for (const d of workerDirs) procs.start(s3Env(path.join(tmp, d)));
    await runOnWorkers('INITIAL');
    await runInProcess('INITIAL');
    await expectSameLakes();
    await expectCustomersEqualSources();

    for (let i = 0; i < N; i++) await changeBranch(scratch[i].url, { index: i, orders: 400, customers: 60 });
    await runOnWorkers('INCREMENTAL');
    await runInProcess('INCREMENTAL');
    await expectSameLakes();
    await expectCustomersEqualSources();
    expect((await lakeRowsWithoutLoadTimes(await lake().loadTable('fan.customers'))).some((j) => j.includes('(upd)'))).toBe(true);
  }, 400_000);
});
