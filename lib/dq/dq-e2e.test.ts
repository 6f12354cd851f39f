import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScratchDatabase, createTestDatabase, type TestDatabase } from '../testing/pg';
import { silentLogger } from '../log';
import { openLake, type Lake } from '../lake';
import { createPostgresSource, toJulianDay } from '../sources';
import { parseTablesConfig } from '../config/tables-json';
import { DEFAULT_SETTINGS, lakeTarget, runEtl, type BranchHandle } from '../etl';
import { FIXTURE_TABLES, queryBranch, seedBranch } from '../testing/branch-fixtures';
import { listDqResults } from './results';
import { runDq, type DqOptions } from './run';
import { runSelfTest } from './self-test';
import { openPostgresDqSource, type DqBranch } from './source';

// End to end: two real Postgres branches loaded into a real lake by the ETL
// engine, then reconciled; differences made through the lake library and at
// the sources, narrowed to keys, repaired and re-checked.
let db: TestDatabase;
let lake: Lake;
let warehouse: string;
let staging: string;
const scratch: { url: string; drop(): Promise<void> }[] = [];
const tables = parseTablesConfig(FIXTURE_TABLES);
const pick = (...names: string[]) => tables.filter((t) => names.includes(t.lakeName));
const dqBranches = (): DqBranch[] => scratch.map((s, i) => ({ key: `b${i}`, open: () => openPostgresDqSource({ branch: `b${i}`, connectionString: s.url }) }));
const dq = (o: DqOptions & { tables?: string[]; branches?: DqBranch[] } = {}) => runDq(
  { pool: db.pool, lake, tables: o.tables ? pick(...o.tables) : tables, branches: o.branches ?? dqBranches(), logger: silentLogger },
  { since: '2023-01-01', ...o },
);
const unit = (r: Awaited<ReturnType<typeof dq>>, table: string, branch: string) => r.results.find((x) => x.table === table && x.branch === branch)!;
const sql = (i: number, text: string) => queryBranch(scratch[i].url, text);

beforeAll(async () => {
  db = await createTestDatabase();
  warehouse = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-wh-'));
  staging = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-stg-'));
  // branch index 2 of the fixtures has an extra column and a wider decimal (schema union)
  for (const index of [0, 2]) {
    const s = await createScratchDatabase('dqbr');
    scratch.push(s);
    await seedBranch(s.url, { index, customers: 40, orders: 400 });
  }
  lake = openLake({ pool: db.pool, warehouse });
  const branches: BranchHandle[] = scratch.map((s, i) => ({ key: `b${i}`, source: createPostgresSource({ branch: `b${i}`, connectionString: s.url, poolSize: 2 }) }));
  try {
    const r = await runEtl({
      pool: db.pool, target: lakeTarget(lake, { namespace: 'etl', keepStaging: true }), branches, tables,
      settings: { ...DEFAULT_SETTINGS, mode: 'INITIAL', retries: 0, retryDelayMs: 10, fetchBatchSize: 500, keepStaging: true }, logger: silentLogger, stagingRoot: staging,
    });
    expect(r.units.filter((u) => u.status !== 'SUCCESS')).toEqual([]);
  } finally { await Promise.all(branches.map((b) => b.source.close())); }
});

afterAll(async () => {
  for (const s of scratch) await s.drop();
  await db.drop();
  await fs.rm(warehouse, { recursive: true, force: true });
  await fs.rm(staging, { recursive: true, force: true });
});

describe('dq end to end', () => {
  it('clean load: every unit OK, results written, representation differences equal', async () => {
    const r = await dq();
    expect(r.runId).toMatch(/^dq-/);
    expect(r.results.map((x) => `${x.table}/${x.branch}:${x.status}:${x.errorDetails ?? ''}`).filter((s) => !s.includes(':OK:'))).toEqual([]);
    expect(r.ok).toBe(true);
    expect(r.results).toHaveLength(tables.length * 2);
    for (const x of r.results) {
      expect(x.hashTotalDelta).toBe(0);
      expect(x.oracleRowCount).toBe(x.icebergRowCount);
      expect(x.oracleRowCount).toBeGreaterThan(0);
      expect(x.lakeSnapshotId).toMatch(/^\d+$/);
    }
    // b0 lacks the email column the schema union added from the other branch
    expect(unit(r, 'customers', 'b0').columnsOnlyInIceberg).toEqual(['email']);
    expect(unit(r, 'customers', 'b1').columnsOnlyInIceberg).toEqual([]);
    // helper-driven: upper bound skipped, said so
    expect(unit(r, 'order_lines', 'b0').windowNote).toMatch(/helper-driven/);
    expect(unit(r, 'order_lines', 'b0').windowEnd).toBeNull();
    const stored = await listDqResults(db.pool, { runId: r.runId });
    expect(stored).toHaveLength(r.results.length);
    expect(stored.every((x) => x.status === 'OK')).toBe(true);
  });

  it('--self-test reconciles the lake against the kept staging Parquet, no source database', async () => {
    const results = await runSelfTest({ lake, tables: pick('customers', 'orders'), branches: [], stagingRoot: staging, namespace: 'etl', logger: silentLogger });
    expect(results.map((r) => `${r.table}/${r.branch}:${r.status}:${r.errorDetails ?? ''}`)).toEqual(['customers/b0:OK:', 'customers/b1:OK:', 'orders/b0:OK:', 'orders/b1:OK:']);
    expect(results[0].windowNote).toMatch(/^self-test: staged Parquet of run /);
    expect(results[2].oracleRowCount).toBeGreaterThan(0);
  });

  it('windows a Julian-date table with Julian literals on both sides', async () => {
    const r = await dq({ tables: ['appointments'], since: '2024-01-20', write: false });
    const u = unit(r, 'appointments', 'b0');
    expect(u.status).toBe('OK');
    expect(u.windowNote).toMatch(/Julian/);
    const [{ n }] = await sql(0, `SELECT count(*)::int AS n FROM oasis.appointments WHERE julian_date >= ${toJulianDay('2024-01-20')}`);
    expect(u.oracleRowCount).toBe(n);
    expect(n).toBeGreaterThan(0);
    expect(n).toBeLessThan(200);
  });

  it('narrows a deleted lake row, a changed value and an extra lake row to their keys; repair fixes them', async () => {
    const orders = await lake.loadTable('etl.orders');
    await orders.deleteWhere({ partition: { BRANCH_ID: 'b0' }, keys: { columns: ['order_id'], values: [['50']] } }); // lake lost a row
    await sql(0, `UPDATE oasis.orders SET note = 'changed quietly' WHERE order_id = 70`); // CDC column not moved
    await sql(0, `DELETE FROM oasis.orders WHERE order_id = 90`); // deleted at the source: extra in the lake
    const r = await dq({ tables: ['orders'] });
    const u = unit(r, 'orders', 'b0');
    expect(u).toMatchObject({ status: 'MISMATCH', hashOnlyInOracle: 1, hashMismatch: 1, hashOnlyInIceberg: 1, hashTotalDelta: 3, rowCountDelta: 0 });
    const ex = u.exampleKeys as { only_in_source: unknown[]; only_in_lake: unknown[]; hash_mismatch: unknown[] };
    expect(ex.only_in_source).toEqual([{ order_id: '50' }]);
    expect(ex.only_in_lake).toEqual([{ order_id: '90' }]);
    expect(ex.hash_mismatch).toEqual([{ key: { order_id: '70' }, columns: ['note'] }]);
    expect(unit(r, 'orders', 'b1').status).toBe('OK');
    expect(r.ok).toBe(false);

    // repair without deletes: merged, but the extra lake row remains
    const r1 = await dq({ tables: ['orders'], repair: true });
    const u1 = unit(r1, 'orders', 'b0');
    expect(u1.status).toBe('MISMATCH');
    expect(u1.repair).toMatchObject({ status: 'PARTIAL', merged: { rows: 2, inserted: 1, updated: 1 }, recheck: { only_in_source: 0, hash_mismatch: 0 } });
    const r2 = await dq({ tables: ['orders'], write: false });
    expect(unit(r2, 'orders', 'b0')).toMatchObject({ hashOnlyInOracle: 0, hashMismatch: 0, hashOnlyInIceberg: 1 });

    // with deletes: everything fixed, re-check clean, and a fresh check is OK
    const r3 = await dq({ tables: ['orders'], repair: true, repairDeletes: true });
    expect(unit(r3, 'orders', 'b0')).toMatchObject({ status: 'OK', repair: { status: 'REPAIRED', deleted: 1, found_status: 'MISMATCH' } });
    expect(r3.ok).toBe(true);
    const r4 = await dq({ tables: ['orders'] });
    expect(unit(r4, 'orders', 'b0')).toMatchObject({ status: 'OK', hashTotalDelta: 0, rowCountDelta: 0 });
    // insert_at carried forward on the updated row, Recorded_updated_at moved
    const rows: Record<string, unknown>[] = [];
    for await (const b of (await lake.loadTable('etl.orders')).scan({ partition: { BRANCH_ID: 'b0' }, columns: ['order_id', 'insert_at', 'Recorded_updated_at'] })) rows.push(...b.toArray().map((x) => x.toJSON()));
    const r70 = rows.find((x) => String(x.order_id) === '70')!;
    expect(r70.insert_at).not.toEqual(r70.Recorded_updated_at);
  });

  it('counts only with hash off', async () => {
    const r = await dq({ tables: ['customers'], hash: false, write: false });
    expect(unit(r, 'customers', 'b0')).toMatchObject({ status: 'OK', hashMatched: null, rowCountDelta: 0 });
  });

  it('a source that is down gives ERROR for its units; the other branch is still checked', async () => {
    const down: DqBranch = { key: 'down', open: () => openPostgresDqSource({ branch: 'down', connectionString: 'postgres://nobody@127.0.0.1:1/none', connectTimeoutSeconds: 2 }) };
    const r = await dq({ tables: ['customers', 'products'], branches: [...dqBranches(), down], write: false });
    expect(r.results.filter((x) => x.branch === 'down').map((x) => x.status)).toEqual(['ERROR', 'ERROR']);
    expect(unit(r, 'customers', 'down').errorDetails).toMatch(/cannot reach branch down/);
    expect(r.results.filter((x) => x.branch !== 'down').every((x) => x.status === 'OK')).toBe(true);
    expect(r.ok).toBe(false);
  });
});
