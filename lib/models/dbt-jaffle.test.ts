import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { openChdbTarget } from './chdb-target';
import { executeProject } from './execute';
import { parseProject } from './project';
import { readProjectFiles } from './project-dir';
import { renderTemplate } from './template';
import type { Target } from './target';
import type { RunSummary } from './types';

// A dbt project written for PostgreSQL (test/fixtures/dbt-jaffle: seeds,
// folder configs, a {% for %} loop, a macro, an incremental model, the four
// generic tests and a singular one) built by Tributary in the embedded
// ClickHouse, and its customers and orders compared row for row with the
// same model files rendered for and run in PostgreSQL over the same CSVs.

const FIXTURE = path.resolve('test/fixtures/dbt-jaffle');
const SEEDS = ['raw_customers', 'raw_orders', 'raw_payments'];
let db: TestDatabase; let target: Target; let stateDir: string;

beforeAll(async () => {
  db = await createTestDatabase();
  stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'models-jaffle-'));
  target = await openChdbTarget({ stateDir, cwd: process.cwd(), database: `j_${crypto.randomBytes(3).toString('hex')}` });
});
afterAll(async () => {
  await target?.close();
  await db?.drop();
  if (stateDir) fs.rmSync(stateDir, { recursive: true, force: true });
});

const files = () => readProjectFiles(FIXTURE);
const project = (f = files()) => parseProject(FIXTURE, f);
const noLake = async (ident: string): Promise<string> => { throw new Error(`no lake table ${ident} in this test`); };
const exec = (command: 'run' | 'test' | 'build' | 'seed', o: { select?: string[]; exclude?: string[]; files?: Record<string, string> } = {}): Promise<RunSummary> =>
  executeProject(project(o.files), target, { command, select: o.select, exclude: o.exclude, resolveSource: noLake, threads: 3 });
const rows = async (sql: string) => (await target.query(sql)).rows;
const rel = (n: string) => `\`${target.database}\`.\`${n}\``;
const bad = (s: RunSummary) => s.results.filter((x) => !['success', 'pass'].includes(x.status)).map((x) => `${x.kind} ${x.name} ${x.status} ${x.error ?? ''}`);

/** The same model files rendered for PostgreSQL: refs to schema `jaffle`, the macro's PostgreSQL spelling. */
function postgresSql(model: string): string {
  const p = project();
  const m = p.models.get(model)!;
  return renderTemplate(m.raw, {
    ref: (n) => `jaffle.${n}`, source: () => { throw new Error('no sources'); }, config: () => '', var: () => undefined,
    is_incremental: () => false, this: `jaffle.${model}`,
  }, { file: m.path, preamble: fs.readFileSync(path.join(FIXTURE, 'postgres/macros.sql'), 'utf8') });
}

/** Load the CSVs into PostgreSQL with an independent reader (the fixture's CSVs have no quoted fields). */
async function loadPostgres(): Promise<void> {
  const types: Record<string, string> = {
    raw_customers: 'id integer, first_name text, last_name text',
    raw_orders: 'id integer, user_id integer, order_date date, status varchar(32)',
    raw_payments: 'id integer, order_id integer, payment_method text, amount integer',
  };
  await db.pool.query('CREATE SCHEMA jaffle');
  for (const s of SEEDS) {
    const [, ...lines] = fs.readFileSync(path.join(FIXTURE, `seeds/${s}.csv`), 'utf8').trim().split('\n');
    await db.pool.query(`CREATE TABLE jaffle.${s} (${types[s]})`);
    for (const l of lines) {
      const v = l.split(',');
      await db.pool.query(`INSERT INTO jaffle.${s} VALUES (${v.map((_, i) => `$${i + 1}`).join(', ')})`, v.map((x) => (x === '' ? null : x)));
    }
  }
  for (const m of ['stg_customers', 'stg_orders', 'stg_payments', 'customers', 'orders']) await db.pool.query(`CREATE VIEW jaffle.${m} AS ${postgresSql(m)}`);
}

/** One value as both engines' drivers give it back: numbers as numbers, dates as YYYY-MM-DD. */
function norm(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (v instanceof Date) return `${v.getFullYear()}-${String(v.getMonth() + 1).padStart(2, '0')}-${String(v.getDate()).padStart(2, '0')}`;
  if (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v)) return Number(v);
  return v;
}
const normRows = (rs: Record<string, unknown>[]) => rs.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, norm(v)])));

describe('a dbt project written for PostgreSQL (test/fixtures/dbt-jaffle)', () => {
  test('parse: folder configs give staging views and mart tables, seeds carry their folder tags, no warnings', () => {
    const p = project();
    expect(p.errors).toEqual([]);
    expect(p.warnings).toEqual([]);
    expect([...p.seeds.keys()].sort()).toEqual(SEEDS);
    expect(p.seeds.get('raw_orders')!.config).toMatchObject({ tags: ['raw'], column_types: { status: 'varchar(32)' }, quote_columns: true, delimiter: ',' });
    expect(p.models.get('stg_orders')!.config).toMatchObject({ materialized: 'view', tags: ['staging'] });
    expect(p.models.get('customers')!.config.materialized).toBe('table');
    expect(p.models.get('payments_inc')!.config.materialized).toBe('incremental');
    expect(p.models.get('stg_orders')!.refs).toEqual(['raw_orders']);
  });

  test('build: seeds first, then the models that ref them, every test passing; equal to PostgreSQL row for row', async () => {
    const s = await exec('build');
    expect(bad(s)).toEqual([]);
    const names = s.results.map((r) => r.name);
    for (const seed of SEEDS) expect(s.results.find((r) => r.name === seed)).toMatchObject({ kind: 'seed', status: 'success' });
    expect(names.indexOf('raw_orders')).toBeLessThan(names.indexOf('stg_orders'));
    expect(s.results.filter((r) => r.kind === 'test')).toHaveLength(17);
    expect(s.results.find((r) => r.name === 'raw_payments')!.rows).toBe(16);
    // the seed's columns: inferred like dbt, or as column_types says
    expect(await rows(`SELECT name, type FROM system.columns WHERE database = '${target.database}' AND table = 'raw_orders' ORDER BY position`)).toEqual([
      { name: 'id', type: 'Nullable(Int64)' }, { name: 'user_id', type: 'Nullable(Int64)' },
      { name: 'order_date', type: 'Nullable(Date32)' }, { name: 'status', type: 'Nullable(String)' },
    ]);
    expect(await rows(`SELECT engine FROM system.tables WHERE database = '${target.database}' AND name IN ('stg_orders', 'orders') ORDER BY name`)).toEqual([{ engine: 'MergeTree' }, { engine: 'View' }]);

    await loadPostgres();
    for (const [model, key] of [['customers', 'customer_id'], ['orders', 'order_id']]) {
      const pg = normRows((await db.pool.query(`SELECT * FROM jaffle.${model} ORDER BY ${key}`)).rows);
      const ch = normRows(await rows(`SELECT * FROM ${rel(model)} ORDER BY ${key}`));
      // column names as the SELECT says (customers.customer_id is customer_id), in the same order
      expect(Object.keys(ch[0])).toEqual(Object.keys(pg[0]));
      expect(ch).toEqual(pg);
    }
    // the LEFT JOINs' NULLs: customers without orders, an order without payments
    const noOrders = await rows(`SELECT customer_id, number_of_orders, customer_lifetime_value FROM ${rel('customers')} WHERE first_order IS NULL ORDER BY customer_id`);
    expect(noOrders.map((r) => Number(r.customer_id))).toEqual([4, 5, 6, 10, 12]);
    expect(noOrders.every((r) => r.number_of_orders === null && r.customer_lifetime_value === null)).toBe(true);
    expect((await rows(`SELECT amount FROM ${rel('orders')} WHERE order_id = 15`))[0].amount).toBeNull();
  });
});
