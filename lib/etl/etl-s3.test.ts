import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { lakeRowsWithoutLoadTimes } from './test-lake-readers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEnv, type Env } from '../config/env';
import { openLake, type Lake } from '../lake';
import { startS3, type TestS3 } from '../lake/test-s3';
import { silentLogger } from '../log';
import { createPostgresSource } from '../sources';
import { createScratchDatabase, createTestDatabase, type TestDatabase } from '../testing/pg';
import { executeEtl } from './execute';
import { EtlRequest } from './request';
import { localPaths } from '../config/data-path';
import type { BranchHandle } from './runner';
import { FIXTURE_TABLES, changeBranch, seedBranch } from '../testing/branch-fixtures';

// ETL INITIAL then INCREMENTAL onto an s3:// warehouse (s3rver), configured the way a user does it:
// TRIBUTARY_WAREHOUSE=s3://… plus the AWS_* / TRIBUTARY_S3_* settings, through executeEtl. The same
// runs go onto a file:// warehouse (proven equal to the sources by etl-lake.test.ts); both lakes must
// hold the same rows, and the customers table is also checked against the sources and through chdb icebergS3.
const N = 3;
let s3: TestS3;
let dbS3: TestDatabase;
let dbFile: TestDatabase;
let tmp: string;
let tablesFile: string;
let envS3: Env;
let envFile: Env;
const scratch: { url: string; drop(): Promise<void> }[] = [];
let branches: BranchHandle[];
const LAKE_TABLES = ['customers', 'products', 'orders', 'appointments', 'order_lines', 'orders_enriched'];

beforeAll(async () => {
  s3 = await startS3();
  [dbS3, dbFile] = await Promise.all([createTestDatabase(), createTestDatabase()]);
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'etl-s3-'));
  tablesFile = path.join(tmp, 'tables.json');
  await fs.writeFile(tablesFile, JSON.stringify(FIXTURE_TABLES));
  envS3 = parseEnv({
    TRIBUTARY_DATA_DIR: path.join(tmp, 'data-s3'), TRIBUTARY_WAREHOUSE: s3.warehouse(), AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER',
    AWS_REGION: 'us-east-1', TRIBUTARY_S3_ENDPOINT: s3.endpoint, TRIBUTARY_S3_FORCE_PATH_STYLE: 'true',
  } as unknown as NodeJS.ProcessEnv);
  envFile = parseEnv({ TRIBUTARY_DATA_DIR: path.join(tmp, 'data-file') } as unknown as NodeJS.ProcessEnv);
  for (let i = 0; i < N; i++) {
    const s = await createScratchDatabase('br');
    scratch.push(s);
    await seedBranch(s.url, { index: i, customers: 20, orders: 60 });
  }
  branches = scratch.map((s, i) => ({ key: `b${i}`, source: createPostgresSource({ branch: `b${i}`, connectionString: s.url, poolSize: 2 }) }));
});

afterAll(async () => {
  await Promise.all((branches ?? []).map((b) => b.source.close()));
  for (const s of scratch) await s.drop();
  await dbS3?.drop();
  await dbFile?.drop();
  await s3?.stop();
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

const lakeOf = (db: TestDatabase, env: Env): Lake => openLake({ pool: db.pool, warehouse: env.warehouse, s3: env.s3 });

async function expectSameLakes(): Promise<void> {
  const a = lakeOf(dbS3, envS3), b = lakeOf(dbFile, envFile);
  let total = 0;
  for (const name of LAKE_TABLES) {
    const ts = await a.loadTable(`etl.${name}`), tf = await b.loadTable(`etl.${name}`);
    expect(ts.location.startsWith('s3://')).toBe(true);
    // every file of the s3 table lives in the bucket
    expect((await ts.files()).every((f) => f.path.startsWith('s3://'))).toBe(true);
    const [rs, rf] = [await lakeRowsWithoutLoadTimes(ts), await lakeRowsWithoutLoadTimes(tf)];
    expect(rs, name).toEqual(rf);
    total += rs.length;
  }
  expect(total).toBeGreaterThan(N * 100);
}

async function expectCustomersEqualSources(): Promise<void> {
  const want: string[] = [];
  for (let i = 0; i < N; i++) {
    const c = new pg.Client({ connectionString: scratch[i].url });
    await c.connect();
    try {
      for (const r of (await c.query('SELECT customer_id::text AS id, name FROM oasis.customers')).rows) want.push(`b${i}|${r.id}|${r.name}`);
    } finally { await c.end(); }
  }
  const t = await lakeOf(dbS3, envS3).loadTable('etl.customers');
  const { query } = await import('chdb');
  const key = t.location.replace(/^s3:\/\/[^/]+\//, '');
  const out = query(`SELECT BRANCH_ID, toString(customer_id) AS id, name FROM icebergS3('${s3.endpoint}/${s3.bucket}/${key}/', 'S3RVER', 'S3RVER')`, 'JSONEachRow');
  const got = out.trim().split('\n').map((l) => JSON.parse(l)).map((r) => `${r.BRANCH_ID}|${r.id}|${r.name}`);
  expect(got.sort()).toEqual(want.sort());
}

describe('ETL onto an s3:// warehouse', () => {
  it('INITIAL: the s3 lake equals the file lake and the sources', async () => {
    for (const [db, env] of [[dbS3, envS3], [dbFile, envFile]] as const) {
      const r = await executeEtl({ pool: db.pool, env, logger: silentLogger, paths: localPaths }, EtlRequest.parse({ mode: 'INITIAL', tablesFile, retries: 0, retryDelay: '10ms', fetchBatchSize: 100 }), { branches });
      expect(r.units.filter((u) => u.status !== 'SUCCESS').map((u) => `${u.table}@${u.branch}: ${u.error}`)).toEqual([]);
    }
    await expectSameLakes();
    await expectCustomersEqualSources();
    // the staged files were uploaded, not left behind
    const staged = await fs.readdir(path.join(envS3.dataDir, 'staging'), { recursive: true }).catch(() => []);
    expect(staged.filter((f) => String(f).endsWith('.parquet'))).toEqual([]);
  });

  it('INCREMENTAL: merges on s3 leave it equal to the file lake and the sources', async () => {
    for (let i = 0; i < N; i++) await changeBranch(scratch[i].url, { index: i, customers: 20, orders: 60 });
    for (const [db, env] of [[dbS3, envS3], [dbFile, envFile]] as const) {
      const r = await executeEtl({ pool: db.pool, env, logger: silentLogger, paths: localPaths }, EtlRequest.parse({ mode: 'INCREMENTAL', compactDeletedRatio: 0.05, tablesFile, retries: 0, retryDelay: '10ms', fetchBatchSize: 100 }), { branches });
      expect(r.units.filter((u) => u.status !== 'SUCCESS').map((u) => `${u.table}@${u.branch}: ${u.error}`)).toEqual([]);
    }
    await expectSameLakes();
    await expectCustomersEqualSources();
  });
});
