// GET /api/v1/assets and POST /api/v1/assets/run against a real migrated
// Postgres, a lake written by the lake library, a tables.json and a models
// project folder on disk: the graph equals the expected nodes and edges, each
// node carries its load/build, DQ and schema, and "run with upstream" queues
// exactly the expected job runs; input and roles are checked.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CUSTOMERS, ORDERS, customerRows, makeModelsWarehouse, orderRows } from '@/lib/models/test-project';
import { batchOf } from '@/lib/lake/test-helpers';
import { openLake } from '@/lib/lake';
import { createConnection } from '@/lib/connections';
import { createFlow } from '@/lib/flows';
import { serverDeps } from '@/app/_server/deps';
import { callRoute as call } from '../test-call';
import { useRouteServer } from '../test-server';
import * as assets from './route';
import * as run from './run/route';

const TABLES = [
  { table: 'SHOP.CUSTOMERS', unique_key: 'ID', cdc_column: 'RECORDED_UPDATED_AT', category: 'masters', freshness: { warn_after: '30m', error_after: '12h' } },
  { table: 'SHOP.ORDERS', unique_key: 'ID', cdc_column: 'RECORDED_UPDATED_AT', category: 'transactions', freshness: { warn_after: '2h', error_after: '6h' } },
  { table: 'SHOP.ITEMS', unique_key: 'ID', cdc_column: 'RECORDED_UPDATED_AT', category: 'transactions' },
];
const PROJECT: Record<string, string> = {
  'dbt_project.yml': 'name: shop\n',
  'models/staging/stg_customers.sql': "SELECT id AS customer_id, name FROM {{ source('lake', 'etl.customers') }}\n",
  'models/staging/stg_orders.sql': "SELECT id AS order_id, customer_id, amount FROM {{ source('lake', 'etl.orders') }}\n",
  'models/marts/customer_orders.sql': "{{ config(materialized='table') }}\nSELECT c.customer_id, count() AS orders FROM {{ ref('stg_customers') }} AS c JOIN {{ ref('stg_orders') }} AS o ON o.customer_id = c.customer_id GROUP BY c.customer_id\n",
  'models/schema.yml': 'version: 2\nmodels:\n  - name: stg_orders\n    columns:\n      - name: order_id\n        data_type: Int64\n        tests: [unique]\n  - name: customer_orders\n    columns:\n      - name: customer_id\n        tests: [not_null]\n',
};

const fx = useRouteServer({
  name: 'assets-api',
  dataDir: makeModelsWarehouse,
  env: (dir) => ({ TRIBUTARY_WAREHOUSE: `file://${dir}`, TRIBUTARY_TABLES_FILE: path.join(dir, 'tables.json') }),
  prepare: async ({ db, dataDir }) => {
    fs.writeFileSync(path.join(dataDir, 'tables.json'), JSON.stringify(TABLES));
    for (const [p, text] of Object.entries(PROJECT)) {
      fs.mkdirSync(path.dirname(path.join(dataDir, 'models', p)), { recursive: true });
      fs.writeFileSync(path.join(dataDir, 'models', p), text);
    }
    const lake = openLake({ pool: db.pool, warehouse: `file://${dataDir}` });
    await lake.createNamespace('etl');
    await (await lake.createTable('etl.customers', { schema: CUSTOMERS, partitionBy: ['BRANCH_ID'] })).append([batchOf(CUSTOMERS, customerRows())]);
    await (await lake.createTable('etl.orders', { schema: ORDERS, partitionBy: ['BRANCH_ID'] })).append([batchOf(ORDERS, orderRows())]);
  },
  seed: async ({ db, dataDir, secret }) => {
    const { jobs, env } = serverDeps();
    const ctx = { pool: db.pool, keys: { secret, dataDir } };
    for (const b of ['b1', 'b2']) {
      await createConnection(ctx, { name: `branch_${b}`, kind: 'postgres', isBranch: true, branchKey: b, params: { host: `${b}.example`, port: 5432, database: 'shop', user: 'etl' }, secrets: { password: 'pw-not-used-here' } });
    }
    // Loads: customers on both branches (b2 failed last), orders on b1; items never.
    await db.pool.query(`INSERT INTO etl_meta.etl_control (namespace, table_name, branch_id, status, row_count, last_run_finished_at, last_success_at, error_details) VALUES
      ('etl', 'customers', 'b1', 'SUCCESS', 3, now() - interval '2 hours', now() - interval '2 hours', NULL),
      ('etl', 'customers', 'b2', 'FAILED', 0, now() - interval '1 hour', now() - interval '1 day', 'connection refused'),
      ('etl', 'orders', 'b1', 'SUCCESS', 4, now() - interval '3 hours', now() - interval '3 hours', NULL)`);
    await db.pool.query(`INSERT INTO etl_meta.etl_dq_results (pipeline_run_id, table_name, branch_id, status, row_count_delta, hash_matched, hash_only_in_oracle, hash_only_in_iceberg, hash_mismatch, checked_at) VALUES
      ('dq-old', 'orders', 'b1', 'MISMATCH', 2, 2, 2, 0, 0, now() - interval '2 days'),
      ('dq-new', 'orders', 'b1', 'OK', 0, 4, 0, 0, 0, now() - interval '1 hour')`);
    await db.pool.query(`INSERT INTO model_results (run_id, command, node, kind, status, rows, duration_ms, target) VALUES
      ('r1', 'build', 'customer_orders', 'model', 'success', 3, 12, 'embedded'),
      ('r1', 'build', 'unique_stg_orders_order_id', 'test', 'fail', 1, 3, 'embedded')`);
    await createFlow(db.pool, { jobs, env }, { name: 'nightly', nodes: [{ id: 'load', kind: 'etl.run', params: { mode: 'INCREMENTAL', tables: ['SHOP.ORDERS'] } }, { id: 'marts', kind: 'models.build', params: { select: ['customer_orders+'] } }], edges: [{ from: 'load', to: 'marts' }] });
  },
});
const tok = fx.tok;

describe('GET /api/v1/assets', () => {
  it('needs credentials', async () => {
    expect((await call(assets.GET, 'GET', '/api/v1/assets')).status).toBe(401);
  });

  it('builds the graph of the fixture: sources × branches → lake → models → tests', async () => {
    const r = await call(assets.GET, 'GET', '/api/v1/assets', { token: tok.viewer });
    expect(r.status).toBe(200);
    const g = r.body as { nodes: { id: string; kind: string; group: string }[]; edges: { from: string; to: string }[]; problems: string[] };
    expect(g.problems).toEqual([]);
    expect(g.nodes.map((n) => `${n.kind} ${n.id} [${n.group}]`)).toEqual([
      'lake lake:etl.customers [etl]', 'lake lake:etl.items [etl]', 'lake lake:etl.orders [etl]',
      'model model:customer_orders [models/marts]', 'model model:stg_customers [models/staging]', 'model model:stg_orders [models/staging]',
      'source source:b1:etl.customers [branch b1]', 'source source:b1:etl.items [branch b1]', 'source source:b1:etl.orders [branch b1]',
      'source source:b2:etl.customers [branch b2]', 'source source:b2:etl.items [branch b2]', 'source source:b2:etl.orders [branch b2]',
      'test test:not_null_customer_orders_customer_id [models/marts]', 'test test:unique_stg_orders_order_id [models/staging]',
    ]);
    expect(g.edges.map((e) => `${e.from} → ${e.to}`)).toEqual([
      'lake:etl.customers → model:stg_customers', 'lake:etl.orders → model:stg_orders',
      'model:customer_orders → test:not_null_customer_orders_customer_id',
      'model:stg_customers → model:customer_orders', 'model:stg_orders → model:customer_orders', 'model:stg_orders → test:unique_stg_orders_order_id',
      'source:b1:etl.customers → lake:etl.customers', 'source:b1:etl.items → lake:etl.items', 'source:b1:etl.orders → lake:etl.orders',
      'source:b2:etl.customers → lake:etl.customers', 'source:b2:etl.items → lake:etl.items', 'source:b2:etl.orders → lake:etl.orders',
    ]);
  });

  it('carries last load/build, DQ per branch, schema, freshness against its expectation and the flows naming each node', async () => {
    const r = await call(assets.GET, 'GET', '/api/v1/assets', { token: tok.viewer });
    const node = (id: string) => r.body.nodes.find((n: { id: string }) => n.id === id);
    expect(node('source:b2:etl.customers').last).toMatchObject({ status: 'FAILED', rows: 0, error: 'connection refused' });
    expect(node('source:b2:etl.customers').last.ageSeconds).toBeGreaterThanOrEqual(86_400);
    // the lake table: its newest branch load, the worst branch status, the rows the lake holds
    expect(node('lake:etl.customers').last).toMatchObject({ status: 'FAILED', rows: 3, error: 'connection refused' });
    expect(node('lake:etl.customers').schema.map((c: { name: string; type: string }) => `${c.name}:${c.type}`)).toEqual(['BRANCH_ID:int', 'id:long', 'name:string', 'insert_at:timestamp', 'Recorded_updated_at:timestamp']);
    expect(node('lake:etl.items')).toMatchObject({ last: null, schema: null, sourceTable: 'SHOP.ITEMS' });
    expect(node('lake:etl.orders').dq).toEqual([{ branch: 'b1', status: 'OK', checkedAt: expect.any(String), delta: 0, mismatches: 0, error: null }]);
    expect(node('source:b1:etl.orders').dq.map((d: { status: string }) => d.status)).toEqual(['OK']);
    expect(node('source:b2:etl.orders').dq).toEqual([]);
    expect(node('model:customer_orders').last).toMatchObject({ status: 'success', rows: 3 });
    expect(node('test:unique_stg_orders_order_id').last).toMatchObject({ status: 'fail', rows: 1 });
    expect(node('model:stg_orders').schema).toEqual([{ name: 'order_id', type: 'Int64' }]);
    // Freshness against tables.json's expectations: orders loaded 3 h ago (warn after 2 h); customers' stalest branch b2 a day ago (error after 12 h).
    expect(node('lake:etl.orders').freshness).toMatchObject({ status: 'warn', worstBranch: 'b1', warnAfterSeconds: 7200, errorAfterSeconds: 21_600 });
    expect(node('lake:etl.customers').freshness).toMatchObject({ status: 'error', worstBranch: 'b2' });
    expect(node('lake:etl.customers').freshness.lagSeconds).toBeGreaterThanOrEqual(86_400);
    expect(r.body.nodes.filter((n: { freshness: unknown }) => n.freshness !== null).map((n: { id: string }) => n.id).sort()).toEqual(['lake:etl.customers', 'lake:etl.orders']);
    const flows = (id: string) => node(id).flows.map((f: { name: string }) => f.name);
    expect(flows('lake:etl.orders')).toEqual(['nightly']);
    expect(flows('source:b2:etl.orders')).toEqual(['nightly']);
    expect(flows('lake:etl.customers')).toEqual([]);
    expect(flows('model:customer_orders')).toEqual(['nightly']);
    expect(flows('test:not_null_customer_orders_customer_id')).toEqual(['nightly']);
    expect(flows('model:stg_orders')).toEqual([]);
  });
});

describe('POST /api/v1/assets/run', () => {
  const runs = async () => (await fx.db.pool.query(`SELECT kind, params, status, created_by FROM job_runs ORDER BY created_at, kind`)).rows;

  it('refuses viewers and bad input, naming the field; queues nothing', async () => {
    expect((await call(run.POST, 'POST', '/api/v1/assets/run', { token: tok.viewer, body: { node: 'model:stg_orders' } })).status).toBe(403);
    const bad: [unknown, string, number][] = [
      [{}, 'node', 400],
      [{ node: 'model:stg_orders', scope: 'sideways' }, 'scope', 400],
      [{ node: 'model:stg_orders', action: 'delete' }, 'action', 400],
      [{ node: 'model:stg_orders', extra: 1 }, '', 400],
      [{ node: 'model:nope' }, 'node', 404],
      [{ node: 'model:stg_orders', action: 'dq' }, 'action', 400],
    ];
    for (const [body, field, status] of bad) {
      const r = await call(run.POST, 'POST', '/api/v1/assets/run', { token: tok.operator, body });
      expect(r.status, JSON.stringify(body)).toBe(status);
      if (field) expect(r.body.error.field, JSON.stringify(body)).toBe(field);
    }
    expect(await runs()).toEqual([]);
  });

  it('"run with upstream" of a model queues exactly one ETL unit set and one models build, audited', async () => {
    const r = await call(run.POST, 'POST', '/api/v1/assets/run', { token: tok.operator, body: { node: 'model:customer_orders', scope: 'upstream' } });
    expect(r.status).toBe(202);
    expect(r.body.jobs.map((j: { kind: string }) => j.kind)).toEqual(['etl.run', 'models.build']);
    expect(await runs()).toEqual([
      { kind: 'etl.run', params: { mode: 'INCREMENTAL', tables: ['customers', 'orders'], branch: ['b1', 'b2'], namespace: 'etl' }, status: 'queued', created_by: 'token:olga/t' },
      { kind: 'models.build', params: { select: ['+customer_orders'] }, status: 'queued', created_by: 'token:olga/t' },
    ].sort((a, b) => a.kind.localeCompare(b.kind)));
    const audit = await fx.db.pool.query(`SELECT actor, target FROM audit_events WHERE action = 'job.start' ORDER BY target`);
    expect(audit.rows.map((a) => a.target).sort()).toEqual(r.body.jobs.map((j: { id: string }) => `job:${j.id}`).sort());
  });

  it('a source node downstream and a DQ check queue their own branch and tables', async () => {
    await fx.db.pool.query('DELETE FROM job_runs');
    const a = await call(run.POST, 'POST', '/api/v1/assets/run', { token: tok.operator, body: { node: 'source:b2:etl.orders', scope: 'downstream' } });
    expect(a.status).toBe(202);
    const d = await call(run.POST, 'POST', '/api/v1/assets/run', { token: tok.admin, body: { node: 'lake:etl.customers', action: 'dq' } });
    expect(d.status).toBe(202);
    expect((await runs()).map((x) => [x.kind, x.params])).toEqual(expect.arrayContaining([
      ['etl.run', { mode: 'INCREMENTAL', tables: ['orders'], branch: ['b2'], namespace: 'etl' }],
      ['models.build', { select: ['stg_orders+'] }],
      ['dq.run', { tables: ['customers'], branch: ['b1', 'b2'], namespace: 'etl' }],
    ]));
    expect(await runs()).toHaveLength(3);
  });
});
