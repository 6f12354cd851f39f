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

    // the incremental model's second run takes only payments past its max(payment_id): none
    const inc = await exec('run', { select: ['payments_inc'] });
    expect(inc.results).toMatchObject([{ name: 'payments_inc', status: 'success', rows: 0 }]);
    expect(inc.results[0].sql).toMatch(/where payment_id > \(select max\(payment_id\) from `j_[0-9a-f]+`\.`payments_inc`\)/);
    expect((await rows(`SELECT count() AS n, sum(amount) AS s FROM ${rel('payments_inc')}`))[0]).toEqual({ n: 16, s: 217 });
  });
});

describe('seeds and session settings on chdb', () => {
  const SMALL: Record<string, string> = {
    'dbt_project.yml': 'name: small\nseeds:\n  small:\n    kinds:\n      +delimiter: ";"\n      +quote_columns: false\n      +column_types: {Code: LowCardinality(String), Score: "Decimal(10, 2)"}\n',
    'seeds/kinds.csv': 'ID;Code;Score;Ratio;Flag;Day;At;Note\n1;a;1.50;0.5;true;2024-02-29;2024-03-01 10:20:30;"x; ""quoted"""\n2;b;;1e3;FALSE;;2024-03-02T00:00:00;null\n',
    'seeds/people.csv': 'id,name\n1,Ann\n2,Bob\n3,\n',
    'models/people_named.sql': "SELECT p.id, p.name, k.code FROM {{ ref('people') }} AS p LEFT JOIN {{ ref('kinds') }} AS k ON k.id = p.id\n",
    'models/zeros.sql': "{{ config(materialized='table', query_settings={'join_use_nulls': 0}) }}\nSELECT p.id, k.ratio FROM {{ ref('people') }} AS p\nLEFT JOIN (SELECT assumeNotNull(id) AS id, assumeNotNull(ratio) AS ratio FROM {{ ref('kinds') }}) AS k ON k.id = p.id\n",
    'models/set_ops.sql': "{{ config(materialized='table') }}\nSELECT 'union' AS op, count() AS n FROM (SELECT id FROM {{ ref('people') }} UNION SELECT id FROM {{ ref('people') }})\nUNION ALL SELECT 'except', count() FROM (SELECT 1 AS x FROM {{ ref('people') }} EXCEPT SELECT 2)\nUNION ALL SELECT 'cast_null', count() FROM (SELECT CAST(name AS String) AS c FROM {{ ref('people') }}) WHERE c IS NULL\nUNION ALL SELECT 'rollup_null', count() FROM (SELECT name, count() AS k FROM {{ ref('people') }} WHERE name IS NOT NULL GROUP BY ROLLUP(name)) WHERE name IS NULL\n",
    'models/bad_settings.sql': "{{ config(query_settings={'readonly': 0}) }}\nSELECT 1 AS x\n",
  };
  const small = (f: Record<string, string> = SMALL) => parseProject('/small', f);
  const run = (command: 'seed' | 'build' | 'run', select?: string[], f?: Record<string, string>) =>
    executeProject(small(f), target, { command, select, resolveSource: noLake, threads: 2 });

  test('a query_settings key that is not on the allow-list is a parse error naming it', () => {
    expect(small().errors.map((e) => e.message)).toEqual([expect.stringMatching(/^models: models\/bad_settings\.sql: query_settings: readonly is not a setting a model may change/)]);
  });

  const files = Object.fromEntries(Object.entries(SMALL).filter(([k]) => k !== 'models/bad_settings.sql'));

  test('seed loads only seeds (the selection\'s), typed by column_types else inferred, delimiter and quote_columns applied', async () => {
    const one = await run('seed', ['kinds'], files);
    expect(one.results.map((r) => `${r.kind} ${r.name} ${r.status} ${r.rows}`)).toEqual(['seed kinds success 2']);
    expect(await rows(`SELECT name, type FROM system.columns WHERE database = '${target.database}' AND table = 'kinds' ORDER BY position`)).toEqual([
      { name: 'id', type: 'Nullable(Int64)' }, { name: 'code', type: 'LowCardinality(String)' }, { name: 'score', type: 'Nullable(Decimal(10, 2))' },
      { name: 'ratio', type: 'Nullable(Float64)' }, { name: 'flag', type: 'Nullable(Bool)' }, { name: 'day', type: 'Nullable(Date32)' },
      { name: 'at', type: "Nullable(DateTime64(6, 'UTC'))" }, { name: 'note', type: 'Nullable(String)' },
    ]);
    expect(await rows(`SELECT id, code, toString(score) AS score, ratio, flag, toString(day) AS day, toString(at) AS at, note FROM ${rel('kinds')} ORDER BY id`)).toEqual([
      { id: 1, code: 'a', score: '1.5', ratio: 0.5, flag: true, day: '2024-02-29', at: '2024-03-01 10:20:30.000000', note: 'x; "quoted"' },
      { id: 2, code: 'b', score: null, ratio: 1000, flag: false, day: null, at: '2024-03-02 00:00:00.000000', note: null },
    ].map((r) => ({ ...r, id: expect.anything() })));
    const all = await run('seed', ['resource_type:seed'], files);
    expect(all.results.map((r) => r.name).sort()).toEqual(['kinds', 'people']);
  });

  test('ref() reaches a seed; models join under SQL NULL semantics unless their query_settings say otherwise', async () => {
    const s = await run('build', [], files);
    expect(bad(s)).toEqual([]);
    expect(await rows(`SELECT toInt64(id) AS id, name, code FROM ${rel('people_named')} ORDER BY id`)).toEqual([
      { id: 1, name: 'Ann', code: 'a' }, { id: 2, name: 'Bob', code: 'b' }, { id: 3, name: null, code: null },
    ]);
    // bare UNION / EXCEPT are DISTINCT, CAST keeps NULL, ROLLUP's total row has a NULL key: SQL's meaning
    expect(Object.fromEntries((await rows(`SELECT op, toInt64(n) AS n FROM ${rel('set_ops')}`)).map((r) => [r.op, r.n]))).toEqual({ union: 3, except: 1, cast_null: 1, rollup_null: 1 });
    // join_use_nulls = 0 for this model: ClickHouse's own default value for the unmatched row
    expect(await rows(`SELECT toInt64(id) AS id, ratio FROM ${rel('zeros')} ORDER BY id`)).toEqual([{ id: 1, ratio: 0.5 }, { id: 2, ratio: 1000 }, { id: 3, ratio: 0 }]);
  });

  test('a value that does not fit its column_types fails the seed, naming it; the old table stays', async () => {
    const broken = { ...files, 'dbt_project.yml': files['dbt_project.yml'].replace('Score: "Decimal(10, 2)"', 'Score: "Decimal(10, 2)", Flag: Int32') };
    const s = await run('seed', ['kinds'], broken);
    expect(s.results[0]).toMatchObject({ kind: 'seed', status: 'error' });
    expect(s.results[0].error).toMatch(/^models: seed kinds \(seeds\/kinds\.csv\): 2 value\(s\) of column Flag do not fit its type Nullable\(Int32\) \(values such as "true"\)/);
    expect((await rows(`SELECT count() AS n FROM ${rel('kinds')}`))[0].n).toBe(2);
  });
});
