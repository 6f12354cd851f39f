import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { useShopModels } from '../testing/shop-models';
import { readProjectFiles } from './project-dir';
import { writeProject } from './test-project';

// `tributary models …` end to end: a real database, a lake written by the lake
// library, the embedded ClickHouse under the data folder, real processes.

const fx = useShopModels({
  'models/marts/dup_customers.sql': "SELECT customer_id FROM {{ ref('stg_customers') }} UNION ALL SELECT 1 AS customer_id\n",
  'models/marts/after_dup.sql': "SELECT * FROM {{ ref('dup_customers') }}\n",
  'models/marts/dup.yml': 'models:\n  - name: dup_customers\n    columns:\n      - name: customer_id\n        tests: [unique]\n',
});

/** A `tributary models` process: its outcome, and its stderr so far (to wait on what it says while it runs). */
function startCli(...args: string[]): { done: Promise<{ code: number | null; out: string; err: string }>; err: () => string } {
  const c = spawn(process.execPath, ['bin/tributary.mjs', 'models', ...args], {
    env: { ...process.env, DATABASE_URL: fx.db.url, TRIBUTARY_WAREHOUSE: fx.wh.uri, TRIBUTARY_DATA_DIR: fx.wh.dir, LOG_LEVEL: 'error' },
  });
  let out = ''; let err = '';
  c.stdout.on('data', (d) => (out += d)); c.stderr.on('data', (d) => (err += d));
  return { done: new Promise((resolve) => c.on('close', (code) => resolve({ code, out, err }))), err: () => err };
}
const cli = (...args: string[]) => startCli(...args).done;

describe('tributary models', () => {
  test('build --json: every model and test with status, rows and duration; query shows the rows', async () => {
    const r = await cli('build', '--project', fx.proj.root, '--exclude', 'dup_customers+', '--json');
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.ok).toBe(true);
    const co = j.results.find((x: { name: string }) => x.name === 'customer_orders');
    expect(co).toMatchObject({ kind: 'model', status: 'success', rows: 3, materialized: 'table' });
    expect(typeof co.durationMs).toBe('number');
    expect(j.results.find((x: { name: string }) => x.name === 'unique_stg_orders_order_id')).toMatchObject({ kind: 'test', status: 'pass', rows: 0 });
    const q = await cli('query', 'SELECT customer_id, total FROM models.customer_orders ORDER BY customer_id', '--format', 'json');
    expect(q.code).toBe(0);
    expect(JSON.parse(q.out)).toEqual([{ customer_id: 1, total: 12.5 }, { customer_id: 2, total: 3 }, { customer_id: 3, total: 10 }]);
    const csv = await cli('query', 'SELECT customer_id, name FROM models.stg_customers ORDER BY customer_id LIMIT 2');
    expect(csv.out).toBe('customer_id,name\n1,c1\n2,c2\n');
    const ro = await cli('query', 'DROP TABLE models.customer_orders');
    expect(ro.code).toBe(2);
    expect(ro.err).toMatch(/refused by the SQL allow-list: Drop statements \(only one SELECT/);
    const rows = await fx.db.pool.query(`SELECT node, status, rows FROM model_results WHERE node = 'customer_orders'`);
    expect(rows.rows).toEqual([{ node: 'customer_orders', status: 'success', rows: '3' }]);
  });

  test('a failing test exits non-zero, prints its failing rows, skips downstream', async () => {
    const r = await cli('build', '--project', fx.proj.root, '--select', 'dup_customers+');
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/FAIL +test +unique_dup_customers_customer_id 1 failing/);
    expect(r.out).toContain('{"unique_field":1,"n_records":2}');
    expect(r.out).toMatch(/SKIPPED +model after_dup .*\(upstream unique_dup_customers_customer_id failed\)/);
    expect(r.out).toMatch(/FAILED: 3 nodes/);
  });

  test('compile writes target/compiled; list shows the selection; bad flags name the flag', async () => {
    const c = await cli('compile', '--project', fx.proj.root, '--select', 'stg_orders', '--vars', '{min_amount: 5}');
    expect(c.code).toBe(0);
    expect(fs.readFileSync(path.join(fx.proj.root, 'target/compiled/shop/models/staging/stg_orders.sql'), 'utf8')).toMatch(new RegExp(`FROM icebergLocal\\('${fx.wh.dir}/shop/orders'\\)\nWHERE amount >= 5\n$`));
    const l = await cli('list', '--project', fx.proj.root, '--select', '+customer_orders', '--json');
    expect(JSON.parse(l.out).nodes.filter((n: { kind: string }) => n.kind === 'model').map((n: { name: string }) => n.name)).toEqual(['stg_customers', 'stg_orders', 'customer_orders']);
    const bad = await cli('run', '--project', fx.proj.root, '--vars', 'nope');
    expect(bad.code).not.toBe(0);
    expect(bad.err).toMatch(/--vars must be a YAML mapping/);
  });

  test('first use writes a starter project over a lake table, which builds', async () => {
    const r = await cli('build', '--json');
    expect(r.code).toBe(0);
    expect(fs.existsSync(path.join(fx.wh.dir, 'models/models/staging/stg_customers.sql'))).toBe(true);
    const j = JSON.parse(r.out);
    expect(j.results.map((x: { name: string; status: string }) => `${x.name} ${x.status}`)).toEqual(['stg_customers success', 'not_null_stg_customers_BRANCH_ID pass']);
  });

  test('the embedded state folder is taken in turns: a command waits while another process holds it', async () => {
    const { Session } = await import('chdb');
    const s = new Session(path.join(fx.wh.dir, 'chdb'));
    const p = startCli('query', 'SELECT count() AS n FROM models.stg_orders', '--format', 'json');
    // chdb itself prints each refused open to stderr while the command waits: once one shows, the command
    // has found the folder held and is waiting its turn (not failing, not yet started).
    const until = Date.now() + 60_000;
    while (!/Cannot lock file|already running/i.test(p.err())) {
      if (Date.now() > until) { s.close(); throw new Error(`the command never found the folder held; stderr: ${p.err()}`); }
      await new Promise((r) => setTimeout(r, 100));
    }
    s.close();
    const r = await p.done;
    // Tributary reports no error: the command waited, then ran
    expect(r.code).toBe(0);
    expect(r.err).not.toMatch(/^error:/m);
    expect(JSON.parse(r.out)).toEqual([{ n: 4 }]);
  });

  test('seed --select loads only that seed, recorded as a seed; warnings of dbt_project.yml are printed', async () => {
    const jaffle = writeProject({
      ...readProjectFiles(path.resolve('test/fixtures/dbt-jaffle')),
      'dbt_project.yml': 'name: jaffle_shop\nseeds:\n  jaffle_shop:\n    +tags: [raw]\n    +persist_docs: {relation: true}\n',
    });
    try {
      const r = await cli('seed', '--project', jaffle.root, '--select', 'raw_orders');
      expect(r.code).toBe(0);
      expect(r.out).toMatch(/^SUCCESS  seed  raw_orders \[seed\] 15 rows /m);
      expect(r.out).not.toMatch(/raw_customers|stg_orders/);
      expect(r.err).toMatch(/^warning: models: dbt_project\.yml: seeds\.jaffle_shop: \+persist_docs is not applied/m);
      const rows = await fx.db.pool.query(`SELECT command, kind, status, rows FROM model_results WHERE node = 'raw_orders'`);
      expect(rows.rows).toEqual([{ command: 'seed', kind: 'seed', status: 'success', rows: '15' }]);
      const l = await cli('list', '--project', jaffle.root, '--select', 'resource_type:seed', '--exclude', 'raw_customers', '--json');
      expect(JSON.parse(l.out).nodes.map((n: { kind: string; name: string }) => `${n.kind} ${n.name}`)).toEqual(['seed raw_orders', 'seed raw_payments']);
      const q = await cli('query', "SELECT count() AS n, countIf(status = 'placed') AS placed FROM models.raw_orders", '--format', 'json');
      expect(JSON.parse(q.out)).toEqual([{ n: 15, placed: 3 }]);
    } finally { jaffle.remove(); }
  });
});
