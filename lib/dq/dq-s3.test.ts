import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEnv, type Env } from '../config/env';
import { localPaths } from '../config/data-path';
import { createConnection } from '../connections';
import { executeEtl, EtlRequest } from '../etl';
import { openLake, type LakeTable } from '../lake';
import { startS3, type TestS3 } from '../lake/test-s3';
import { silentLogger } from '../log';
import { FIXTURE_TABLES, queryBranch, seedBranch } from '../testing/branch-fixtures';
import { createScratchDatabase, createTestDatabase, type TestDatabase } from '../testing/pg';
import { executeDq } from './execute';
import { DqRequest } from './request';
import type { DqResult } from './result';

// DQ on an s3:// warehouse (s3rver), set up the way a user does it: branches as connection
// records, TRIBUTARY_WAREHOUSE=s3://… plus AWS_* / TRIBUTARY_S3_* through parseEnv, the lake
// loaded by an ETL INITIAL, then `executeDq` (what `tributary dq` and the dq.run job call).
const N = 3;
const SECRET = 'dq-s3-test-secret-0123456789abcdef';
let s3: TestS3;
let db: TestDatabase;
let tmp: string;
let tablesFile: string;
let env: Env;
const scratch: { url: string; drop(): Promise<void> }[] = [];
const LAKE_TABLES = ['appointments', 'customers', 'order_lines', 'orders', 'orders_enriched', 'products'];

const ctx = () => ({ pool: db.pool, env, logger: silentLogger, paths: localPaths });
const dq = (o: Record<string, unknown> = {}) => executeDq(ctx(), DqRequest.parse({ since: '2023-01-01', tablesFile, ...o }));
const sql = (i: number, text: string) => queryBranch(scratch[i].url, text);
const unit = (rs: DqResult[], table: string, branch: string) => rs.find((x) => x.table === table && x.branch === branch)!;
const lake = () => openLake({ pool: db.pool, warehouse: env.warehouse, s3: env.s3 });

async function lakeRows(t: LakeTable, branch: string, columns: string[]): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for await (const b of t.scan({ partition: { BRANCH_ID: branch }, columns })) out.push(...b.toArray().map((r) => r.toJSON() as Record<string, unknown>));
  return out;
}

beforeAll(async () => {
  s3 = await startS3();
  db = await createTestDatabase();
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-s3-'));
  tablesFile = path.join(tmp, 'tables.json');
  await fs.writeFile(tablesFile, JSON.stringify(FIXTURE_TABLES));
  env = parseEnv({
    TRIBUTARY_DATA_DIR: path.join(tmp, 'data'), TRIBUTARY_SECRET: SECRET, TRIBUTARY_WAREHOUSE: s3.warehouse(),
    AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_REGION: 'us-east-1', TRIBUTARY_S3_ENDPOINT: s3.endpoint, TRIBUTARY_S3_FORCE_PATH_STYLE: 'true',
  } as unknown as NodeJS.ProcessEnv);
  for (let i = 0; i < N; i++) {
    const s = await createScratchDatabase('dqs3');
    scratch.push(s);
    await seedBranch(s.url, { index: i, customers: 20, orders: 80 });
    await createConnection({ pool: db.pool, keys: { secret: SECRET, dataDir: env.dataDir } }, {
      name: `branch-${i}`, kind: 'postgres', isBranch: true, branchKey: `b${i}`, secrets: { url: s.url },
    });
  }
  const r = await executeEtl(ctx(), EtlRequest.parse({ mode: 'INITIAL', tablesFile, retries: 0, retryDelay: '10ms', fetchBatchSize: 100 }));
  expect(r.units.filter((u) => u.status !== 'SUCCESS').map((u) => `${u.table}@${u.branch}: ${u.error}`)).toEqual([]);
});

afterAll(async () => {
  for (const s of scratch) await s.drop();
  await db?.drop();
  await s3?.stop();
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

describe('dq on an s3:// warehouse', () => {
  it('after an ETL INITIAL every table × branch is OK, its counts those of the source and of the lake partition', async () => {
    const t = await lake().loadTable('etl.customers');
    expect(t.location.startsWith('s3://')).toBe(true);
    const gets = async () => Object.entries(await s3.requests()).filter(([k]) => k.startsWith('GET')).reduce((n, [, v]) => n + v, 0);
    const before = await gets();
    const r = await dq();
    // the lake side was read from the bucket
    expect(await gets()).toBeGreaterThan(before + LAKE_TABLES.length);
    expect(r.results.map((x) => `${x.table}/${x.branch}:${x.status}:${x.errorDetails ?? ''}`).filter((s) => !s.includes(':OK:'))).toEqual([]);
    expect(r.ok).toBe(true);
    expect(r.results.map((x) => `${x.table}/${x.branch}`)).toEqual(LAKE_TABLES.flatMap((n) => [0, 1, 2].map((i) => `${n}/b${i}`)));
    for (const x of r.results) {
      expect(x).toMatchObject({ hashTotalDelta: 0, rowCountDelta: 0, hashOnlyInOracle: 0, hashOnlyInIceberg: 0, hashMismatch: 0 });
      expect(x.oracleRowCount).toBeGreaterThan(0);
      expect(x.hashMatched).toBe(x.oracleRowCount);
    }
    // the counts, independently: masters are whole at the source; orders from the INITIAL start; the lake partition the same
    for (let i = 0; i < N; i++) {
      const [{ c, p, o }] = await sql(i, `SELECT (SELECT count(*) FROM oasis.customers)::int AS c, (SELECT count(*) FROM oasis.products)::int AS p,
        (SELECT count(*) FROM oasis.orders WHERE order_date >= date '2024-01-01')::int AS o`);
      expect([unit(r.results, 'customers', `b${i}`).oracleRowCount, unit(r.results, 'products', `b${i}`).oracleRowCount, unit(r.results, 'orders', `b${i}`).oracleRowCount]).toEqual([c, p, o]);
      expect((await lakeRows(await lake().loadTable('etl.customers'), `b${i}`, ['customer_id'])).length).toBe(c);
      expect((await lakeRows(await lake().loadTable('etl.products'), `b${i}`, ['product_id'])).length).toBe(p);
    }
  });

  it('changes at the sources without an ETL run: exactly those units MISMATCH with their keys; repair on s3 fixes them and a re-check is OK', async () => {
    await sql(0, `INSERT INTO oasis.products (product_id, title, price, active, updated_at) VALUES (500, 'late product', 2.5, true, timestamptz '2024-01-01 00:00:00+00')`);
    await sql(1, `DELETE FROM oasis.products WHERE product_id = 5`);
    await sql(2, `UPDATE oasis.customers SET name = 'renamed quietly' WHERE customer_id = 7`); // CDC column not moved
    const r = await dq();
    expect(r.ok).toBe(false);
    const bad = r.results.filter((x) => x.status !== 'OK').map((x) => `${x.table}/${x.branch}:${x.status}`);
    expect(bad).toEqual(['customers/b2:MISMATCH', 'products/b0:MISMATCH', 'products/b1:MISMATCH']);
    expect(unit(r.results, 'products', 'b0')).toMatchObject({ rowCountDelta: 1, hashOnlyInOracle: 1, hashOnlyInIceberg: 0, hashMismatch: 0, hashTotalDelta: 1 });
    expect(unit(r.results, 'products', 'b0').exampleKeys).toMatchObject({ only_in_source: [{ product_id: '500' }] });
    expect(unit(r.results, 'products', 'b1')).toMatchObject({ rowCountDelta: -1, hashOnlyInOracle: 0, hashOnlyInIceberg: 1, hashMismatch: 0, hashTotalDelta: 1 });
    expect(unit(r.results, 'products', 'b1').exampleKeys).toMatchObject({ only_in_lake: [{ product_id: '5' }] });
    expect(unit(r.results, 'customers', 'b2')).toMatchObject({ rowCountDelta: 0, hashOnlyInOracle: 0, hashOnlyInIceberg: 0, hashMismatch: 1, hashTotalDelta: 1 });
    expect(unit(r.results, 'customers', 'b2').exampleKeys).toMatchObject({ hash_mismatch: [{ key: { customer_id: '7' }, columns: ['name'] }] });
    // the results were stored
    const stored = (await db.pool.query(`SELECT table_name, branch_id FROM etl_meta.etl_dq_results WHERE pipeline_run_id = $1 AND status = 'MISMATCH' ORDER BY 1, 2`, [r.runId])).rows;
    expect(stored).toEqual([{ table_name: 'customers', branch_id: 'b2' }, { table_name: 'products', branch_id: 'b0' }, { table_name: 'products', branch_id: 'b1' }]);

    const snapBefore = (await lake().loadTable('etl.products')).currentSnapshotId();
    const fixed = await dq({ tables: ['products', 'customers'], repairDeletes: true });
    expect(fixed.results.filter((x) => x.status !== 'OK').map((x) => `${x.table}/${x.branch}:${x.status}:${JSON.stringify(x.repair)}`)).toEqual([]);
    expect(unit(fixed.results, 'products', 'b0').repair).toMatchObject({ status: 'REPAIRED', merged: { rows: 1, inserted: 1, updated: 0 }, recheck: { matched: 1 } });
    expect(unit(fixed.results, 'products', 'b1').repair).toMatchObject({ status: 'REPAIRED', deleted: 1, recheck: { only_in_lake: 0 } });
    expect(unit(fixed.results, 'customers', 'b2').repair).toMatchObject({ status: 'REPAIRED', merged: { rows: 1, inserted: 0, updated: 1 } });

    // the repairs are commits on the s3 table: new snapshots whose files live in the bucket, holding the source's rows
    const products = await lake().loadTable('etl.products');
    expect(products.currentSnapshotId()).not.toBe(snapBefore);
    expect((await products.files()).every((f) => f.path.startsWith('s3://'))).toBe(true);
    expect((await lakeRows(products, 'b0', ['product_id', 'title'])).find((x) => Number(x.product_id) === 500)).toMatchObject({ title: 'late product' });
    expect((await lakeRows(products, 'b1', ['product_id'])).some((x) => Number(x.product_id) === 5)).toBe(false);
    const c7 = (await lakeRows(await lake().loadTable('etl.customers'), 'b2', ['customer_id', 'name'])).filter((x) => Number(x.customer_id) === 7);
    expect(c7).toEqual([{ customer_id: 7n, name: 'renamed quietly' }]);

    const again = await dq({ write: false });
    expect(again.results.filter((x) => x.status !== 'OK').map((x) => `${x.table}/${x.branch}:${x.status}`)).toEqual([]);
    expect(again.ok).toBe(true);
  });
});
