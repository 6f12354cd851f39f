import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import type { Lake } from '../lake';
import { batchOf } from '../lake/test-helpers';
import { openChdbTarget } from './chdb-target';
import { executeProject } from './execute';
import { parseProject } from './project';
import { readProjectFiles } from './project-dir';
import type { Target } from './target';
import type { RunSummary } from './types';
import { makeModelsWarehouse, makeShopLake, ORDERS, orderRow, SHOP_PROJECT, T0, writeProject } from './test-project';

// The engine end to end: a lake written by Tributary's lake library, models
// materialised in the embedded ClickHouse (chdb), read back with plain SQL.

let db: TestDatabase; let wh: ReturnType<typeof makeModelsWarehouse>; let lake: Lake; let target: Target;
let proj: ReturnType<typeof writeProject>; let stateDir: string;

beforeAll(async () => {
  db = await createTestDatabase();
  wh = makeModelsWarehouse();
  lake = await makeShopLake(db.pool, wh.uri);
  proj = writeProject(SHOP_PROJECT);
  stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'models-chdb-'));
  target = await openChdbTarget({ stateDir, cwd: process.cwd(), database: `m_${crypto.randomBytes(3).toString('hex')}` });
});
afterAll(async () => {
  await target?.close();
  await db?.drop();
  wh?.remove(); proj?.remove();
  if (stateDir) fs.rmSync(stateDir, { recursive: true, force: true });
});

const resolveSource = async (ident: string) => (await lake.loadTable(ident)).location;
function project(files = readProjectFiles(proj.root), vars: Record<string, unknown> = {}) {
  return parseProject(proj.root, files, vars);
}
async function exec(command: 'run' | 'test' | 'build', o: { select?: string[]; exclude?: string[]; fullRefresh?: boolean; files?: Record<string, string> } = {}): Promise<RunSummary> {
  return executeProject(project(o.files), target, { command, select: o.select, exclude: o.exclude, fullRefresh: o.fullRefresh, resolveSource, threads: 3 });
}
async function rows(sql: string) { return (await target.query(sql)).rows; }
const rel = (n: string) => `\`${target.database}\`.\`${n}\``;
const byName = (s: RunSummary) => Object.fromEntries(s.results.map((r) => [r.name, r]));

describe('models on chdb', () => {
  test('build: staging views over lake tables, a table joining them, tests passing', async () => {
    const s = await exec('build');
    const r = byName(s);
    expect(s.results.filter((x) => x.status !== 'success' && x.status !== 'pass').map((x) => `${x.name} ${x.status} ${x.error ?? ''}`)).toEqual([]);
    expect(s.ok).toBe(true);
    expect(r.stg_customers.materialized).toBe('view');
    expect(r.customer_orders.rows).toBe(3);
    expect(r.unique_stg_orders_order_id.status).toBe('pass');
    expect(r.accepted_values_stg_orders_status__paid__open__cancelled.status).toBe('pass');
    expect(r.relationships_stg_orders_customer_id__customer_id__ref_stg_customers_.status).toBe('pass');
    expect(r.no_negative_totals.status).toBe('pass');
    // build order: a model runs after its parents' tests
    const names = s.results.map((x) => x.name);
    expect(names.indexOf('customer_orders')).toBeGreaterThan(names.indexOf('unique_stg_orders_order_id'));
    expect(await rows(`SELECT engine FROM system.tables WHERE database = '${target.database}' AND name = 'stg_orders'`)).toEqual([{ engine: 'View' }]);
    expect(await rows(`SELECT customer_id, order_id, amount, status FROM ${rel('stg_orders')} ORDER BY order_id`)).toEqual([
      { customer_id: 1, order_id: 10, amount: 5, status: 'paid' }, { customer_id: 1, order_id: 11, amount: 7.5, status: 'paid' },
      { customer_id: 2, order_id: 12, amount: 3, status: 'open' }, { customer_id: 3, order_id: 13, amount: 10, status: 'paid' },
    ]);
    expect(await rows(`SELECT customer_id, name, orders, total FROM ${rel('customer_orders')} ORDER BY customer_id`)).toEqual([
      { customer_id: 1, name: 'c1', orders: 2, total: 12.5 },
      { customer_id: 2, name: 'c2', orders: 1, total: 3 },
      { customer_id: 3, name: 'c3', orders: 1, total: 10 },
    ]);
    expect(r.customer_orders.sql).toContain(`FROM ${rel('stg_customers')} AS c`);
  });

  test('incremental: after a lake merge of new and changed rows, a run replaces exactly those, equal to a full rebuild', async () => {
    const first = await exec('run', { select: ['orders_inc'] });
    expect(first.ok).toBe(true);
    const T1 = T0 + 3_600_000;
    const t = await lake.loadTable('shop.orders');
    // order 12 changes (paid, new amount), order 14 is new
    await t.merge([batchOf(ORDERS, [orderRow(12, 2, 4, 'paid', T1), orderRow(14, 3, 1, 'open', T1)])], { keys: ['id'], carryForward: ['insert_at'] });
    const second = await exec('run', { select: ['orders_inc'] });
    expect(second.ok).toBe(true);
    expect(second.results[0].rows).toBe(2);
    expect(second.results[0].sql).toContain(`WHERE updated_at > (SELECT max(updated_at) FROM ${rel('orders_inc')})`);
    const inc = await rows(`SELECT order_id, customer_id, amount, status FROM ${rel('orders_inc')} ORDER BY order_id`);
    const full = await rows(`SELECT order_id, customer_id, amount, status FROM ${rel('stg_orders')} ORDER BY order_id`);
    expect(inc).toEqual(full);
    expect(inc).toHaveLength(5);
    expect(inc.find((x) => x.order_id === 12)).toEqual({ order_id: 12, customer_id: 2, amount: 4, status: 'paid' });
    // and a --full-refresh rebuild gives the same table
    const rebuilt = await exec('run', { select: ['orders_inc'], fullRefresh: true });
    expect(rebuilt.results[0].rows).toBe(5);
    expect(await rows(`SELECT order_id, customer_id, amount, status FROM ${rel('orders_inc')} ORDER BY order_id`)).toEqual(inc);
  });

  test('incremental schema change: ignored by default (dbt\'s), fails under on_schema_change fail, --full-refresh rebuilds', async () => {
    const files = readProjectFiles(proj.root);
    files['models/marts/orders_inc.sql'] = files['models/marts/orders_inc.sql'].replace('SELECT order_id,', 'SELECT order_id, 1 AS extra,');
    const ignored = await exec('run', { select: ['orders_inc'], files });
    expect(ignored.ok).toBe(true);
    expect((await rows(`SELECT name FROM system.columns WHERE database = '${target.database}' AND table = 'orders_inc' AND name = 'extra'`))).toEqual([]);
    files['models/marts/orders_inc.sql'] = files['models/marts/orders_inc.sql'].replace("order_by='order_id'", "order_by='order_id', on_schema_change='fail'");
    const s = await exec('run', { select: ['orders_inc'], files });
    expect(s.ok).toBe(false);
    expect(s.results[0].error).toMatch(/orders_inc: the incremental model's columns changed \(added extra UInt8\); rerun with --full-refresh/);
    const f = await exec('run', { select: ['orders_inc'], files, fullRefresh: true });
    expect(f.ok).toBe(true);
    expect(await rows(`SELECT count() AS n, sum(extra) AS e FROM ${rel('orders_inc')}`)).toEqual([{ n: 5, e: 5 }]);
  });

  test('a table rebuild is atomic: a reader never sees an empty or partial table', async () => {
    // a slow-ish model so the rebuild overlaps the reads
    const files = { ...readProjectFiles(proj.root), 'models/marts/big.sql': "{{ config(materialized='table') }}\nSELECT number AS n FROM numbers(3000000)\n" };
    expect((await exec('run', { select: ['big'], files })).ok).toBe(true);
    let stop = false; const seen = new Set<number>(); let reads = 0;
    const reader = (async () => {
      while (!stop) { const [r] = await rows(`SELECT count() AS c FROM ${rel('big')}`); seen.add(Number(r.c)); reads++; }
    })();
    for (let i = 0; i < 3; i++) expect((await exec('run', { select: ['big'], files })).ok).toBe(true);
    stop = true; await reader;
    expect(reads).toBeGreaterThan(0);
    expect([...seen]).toEqual([3000000]);
  });

  test('a failing unique test reports its duplicate keys and build skips what lies downstream', async () => {
    const files = {
      ...readProjectFiles(proj.root),
      'models/marts/dup_customers.sql': "{{ config(materialized='table') }}\nSELECT customer_id, name FROM {{ ref('stg_customers') }}\nUNION ALL SELECT customer_id, name FROM {{ ref('stg_customers') }} WHERE customer_id = 2\n",
      'models/marts/after_dup.sql': "SELECT count() AS n FROM {{ ref('dup_customers') }}\n",
      'models/marts/after_after.sql': "SELECT * FROM {{ ref('after_dup') }}\n",
      'models/marts/dup.yml': 'version: 2\nmodels:\n  - name: dup_customers\n    columns:\n      - name: customer_id\n        tests: [unique]\n',
    };
    const s = await exec('build', { select: ['dup_customers+'], files });
    const r = byName(s);
    expect(s.ok).toBe(false);
    expect(r.dup_customers.status).toBe('success');
    expect(r.unique_dup_customers_customer_id.status).toBe('fail');
    expect(r.unique_dup_customers_customer_id.rows).toBe(1);
    expect(r.unique_dup_customers_customer_id.failingRows).toEqual([{ unique_field: 2, n_records: 2 }]);
    expect(r.after_dup).toMatchObject({ status: 'skipped', skippedBecause: 'unique_dup_customers_customer_id' });
    expect(r.after_after).toMatchObject({ status: 'skipped', skippedBecause: 'unique_dup_customers_customer_id' });
    expect(await rows(`SELECT count() AS n FROM system.tables WHERE database = '${target.database}' AND name = 'after_dup'`)).toEqual([{ n: 0 }]);
    // `run` alone does not test, so nothing is skipped
    expect((await exec('run', { select: ['dup_customers+'], files })).ok).toBe(true);
  });

  test('severity warn and where: a warning does not fail the run', async () => {
    const files = { ...readProjectFiles(proj.root) };
    files['models/schema.yml'] += `  - name: stg_customers_extra
    columns:
      - name: customer_id
        tests:
          - accepted_values:
              values: [1, 2]
              quote: false
              config: {severity: warn}
          - accepted_values:
              values: [1, 2]
              quote: false
              where: "customer_id < 3"
`;
    files['models/staging/stg_customers_extra.sql'] = "SELECT * FROM {{ ref('stg_customers') }}\n";
    const s = await exec('build', { select: ['stg_customers_extra'], files });
    const r = byName(s);
    expect(r.accepted_values_stg_customers_extra_customer_id__False__1__2).toMatchObject({ status: 'warn', rows: 1, failingRows: [{ value_field: 3, n_records: 1 }] });
    expect(r.accepted_values_stg_customers_extra_customer_id__False__1__2_2).toMatchObject({ status: 'pass', rows: 0 });
    expect(s.ok).toBe(true);
  });

  test('a SQL error is the model\'s error, with its rendered SQL', async () => {
    const files = { ...readProjectFiles(proj.root), 'models/broken.sql': "SELECT no_such_column FROM {{ ref('stg_customers') }}\n" };
    const s = await exec('run', { select: ['broken'], files });
    expect(s.results[0]).toMatchObject({ name: 'broken', status: 'error' });
    expect(s.results[0].error).toMatch(/no_such_column/);
    expect(s.results[0].sql).toContain(rel('stg_customers'));
  });
});
