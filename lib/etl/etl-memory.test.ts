import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScratchDatabase, createTestDatabase, type TestDatabase } from '../testing/pg';
import { silentLogger } from '../log';
import { createPostgresSource } from '../sources';
import { MemoryTarget } from './memory-target';
import { runEtl, type BranchHandle } from './runner';
import { DEFAULT_SETTINGS, type EtlSettings } from './settings';
import { parseTablesConfig } from '../config/tables-json';
import { FIXTURE_TABLES, changeBranch, seedBranch } from '../testing/branch-fixtures';

// The run loop against real Postgres branches with the write step in memory:
// watermarks, dispositions, what a merge is handed, refusal without watermark.
// insert_at carry-forward is the lake's merge (not this fake's): etl-lake.test.ts checks it.
let db: TestDatabase;
const scratch: { url: string; drop(): Promise<void> }[] = [];
let branches: BranchHandle[];
let staging: string;
const tables = parseTablesConfig(FIXTURE_TABLES);
const target = new MemoryTarget();
const settings = (o: Partial<EtlSettings>): EtlSettings => ({ ...DEFAULT_SETTINGS, retries: 0, retryDelayMs: 10, fetchBatchSize: 64, ...o });

beforeAll(async () => {
  db = await createTestDatabase();
  staging = await fs.mkdtemp(path.join(os.tmpdir(), 'etl-mem-'));
  for (let i = 0; i < 2; i++) {
    const s = await createScratchDatabase('br');
    scratch.push(s);
    await seedBranch(s.url, { index: i === 1 ? 2 : 0, customers: 30, orders: 120 });
  }
  branches = scratch.map((s, i) => ({ key: `b${i}`, source: createPostgresSource({ branch: `b${i}`, connectionString: s.url, poolSize: 2 }) }));
});

afterAll(async () => {
  await Promise.all(branches.map((b) => b.source.close()));
  for (const s of scratch) await s.drop();
  await db.drop();
  await fs.rm(staging, { recursive: true, force: true });
});

describe('runEtl (memory write step)', () => {
  it('refuses INCREMENTAL units without a watermark', async () => {
    const r = await runEtl({ pool: db.pool, target, branches, tables, settings: settings({ mode: 'INCREMENTAL', tables: ['customers'] }), logger: silentLogger, stagingRoot: staging });
    expect(r.ok).toBe(false);
    expect(r.units.map((u) => u.status)).toEqual(['REFUSED', 'REFUSED']);
    expect(r.units[0].error).toMatch(/--mode INITIAL/);
  });

  it('INITIAL loads every table, replace disposition, watermarks recorded', async () => {
    const r = await runEtl({ pool: db.pool, target, branches, tables, settings: settings({ mode: 'INITIAL' }), logger: silentLogger, stagingRoot: staging });
    expect(r.units.filter((u) => u.status !== 'SUCCESS')).toEqual([]);
    expect(r.ok).toBe(true);
    const lines = target.tables.get('order_lines')!;
    const src = new pg.Client({ connectionString: scratch[0].url });
    await src.connect();
    const n = Number((await src.query(`SELECT count(*) FROM oasis.order_lines l JOIN oasis.orders o USING (order_id) WHERE o.order_date >= '2024-01-01'`)).rows[0].count);
    await src.end();
    expect([...lines.rows.values()].filter((x) => x.BRANCH_ID === 'b0').length).toBe(n);
    expect(lines.schema.fields.map((f) => f.name)).not.toContain('ETL_HELPER_CDC');
    const cust = target.tables.get('customers')!;
    expect(cust.schema.fields.map((f) => `${f.name}:${f.type}`)).toContain('email:Utf8');
    expect(String(cust.schema.fields.find((f) => f.name === 'balance')!.type)).toBe('Decimal[14e+4]');
    expect(r.drift.customers.map((d) => d.column).sort()).toEqual(['balance', 'email']);
    const wm = await db.pool.query(`SELECT * FROM etl_meta.control_state WHERE table_name = 'appointments' ORDER BY branch_id`);
    expect(wm.rows.length).toBe(2);
    expect(Number(wm.rows[0].last_date_value)).toBeGreaterThan(2460311);
    const log = await db.pool.query(`SELECT DISTINCT write_disposition FROM etl_meta.etl_run_log WHERE pipeline_run_id = $1`, [r.runId]);
    expect(log.rows.map((x) => x.write_disposition)).toEqual(['replace']);
  });

  it('INCREMENTAL hands the changed rows to a merge on the table keys', async () => {
    for (let i = 0; i < scratch.length; i++) await changeBranch(scratch[i].url, { index: i, customers: 30, orders: 120 });
    const r = await runEtl({ pool: db.pool, target, branches, tables, settings: settings({ mode: 'INCREMENTAL' }), logger: silentLogger, stagingRoot: staging, now: () => new Date(Date.now() + 3_600_000) });
    expect(r.units.filter((u) => u.status !== 'SUCCESS')).toEqual([]);
    const cust = [...target.tables.get('customers')!.rows.values()];
    expect(cust.filter((x) => x.BRANCH_ID === 'b0').length).toBe(33);
    const upd = cust.find((x) => x.BRANCH_ID === 'b0' && String(x.customer_id) === '11')!;
    expect(upd.name).toMatch(/\(upd\)/);
    expect(target.writes.filter((w) => w.table === 'customers').at(-1)).toMatchObject({ disposition: 'merge' });
    const u = r.units.find((x) => x.table === 'customers' && x.branch === 'b0')!;
    expect(u.rows).toBe(6);
  });
});
