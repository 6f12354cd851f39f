// The Assets page in Chromium against the real stack (`tributary serve` with
// its worker): a lake table imported through the CLI and a models project
// over it; find a model by search, open it, run it with its upstream, and
// see the model and its upstream model turn from never built to success.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, ROOT, startStack, type Stack } from './stack';
import { tributary } from './cli';
import { signIn } from './sign-in';

const ADMIN = { name: 'admin', password: 'admin-e2e-password' };
// In the repository, beside the other e2e stacks (the embedded ClickHouse reads below its cwd).
const DATA = path.join(ROOT, `.data-test-assets-${crypto.randomBytes(4).toString('hex')}`);
const PROJECT: Record<string, string> = {
  'dbt_project.yml': 'name: shop\n',
  'models/staging/stg_orders.sql': "SELECT id, customer, amount, status FROM {{ source('lake', 'shop.orders') }}\n",
  'models/marts/orders_by_status.sql': "{{ config(materialized='table', order_by='status') }}\nSELECT status, count() AS n FROM {{ ref('stg_orders') }} GROUP BY status\n",
  'models/schema.yml': 'version: 2\nmodels:\n  - name: stg_orders\n    columns:\n      - name: id\n        tests: [not_null]\n',
};

let stack: Stack; let browser: Browser; let page: Page;
const pageErrors: string[] = [];

async function cli(...args: string[]) {
  const r = await tributary(args, { TRIBUTARY_DATA_DIR: DATA, DATABASE_URL: '', LOG_LEVEL: 'error' });
  if (r.status !== 0) throw new Error(`tributary ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}

beforeAll(async () => {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`e2e: ${CHROMIUM} is missing — apt-get install -y chromium`);
  fs.mkdirSync(DATA, { recursive: true });
  for (const [p, text] of Object.entries(PROJECT)) {
    fs.mkdirSync(path.dirname(path.join(DATA, 'models', p)), { recursive: true });
    fs.writeFileSync(path.join(DATA, 'models', p), text);
  }
  fs.writeFileSync(path.join(DATA, 'tables.json'), '[]\n');
  stack = await startStack({ admin: ADMIN, dataDir: DATA, env: { TRIBUTARY_TABLES_FILE: path.join(DATA, 'tables.json') } });
  const csv = path.join(DATA, 'orders.csv');
  fs.writeFileSync(csv, 'id,customer,amount,status\n1,10,5,paid\n2,10,7.5,paid\n3,11,3,open\n4,12,10,paid\n');
  await cli('lake', 'import', 'shop.orders', csv, '--mode', 'append');
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const ctx = await browser.newContext({ viewport: { width: 1500, height: 1000 } });
  page = await ctx.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.setDefaultTimeout(30_000);
  await signIn(page, stack.baseUrl, ADMIN);
}, 20 * 60_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  fs.rmSync(DATA, { recursive: true, force: true });
}, 120_000);

describe('Assets page', () => {
  it('draws the lake table, the models and the test, reached from the navigation', async () => {
    await page.getByRole('link', { name: 'Assets' }).click();
    await page.getByRole('heading', { name: 'Assets' }).waitFor();
    for (const id of ['lake:shop.orders', 'model:stg_orders', 'model:orders_by_status', 'test:not_null_stg_orders_id']) await page.getByTestId(`asset-node-${id}`).waitFor();
    expect(await page.getByTestId('asset-node-model:orders_by_status').getAttribute('data-status')).toBe('');
  });

  it('finds a model by search, runs it with its upstream, and sees it and its upstream built', async () => {
    await page.getByTestId('asset-search').fill('orders_by');
    await page.getByTestId('asset-result-model:orders_by_status').click();
    const detail = page.getByTestId('asset-detail-model:orders_by_status');
    await detail.waitFor();
    expect(await detail.getByTestId('asset-last').textContent()).toContain('Never built');
    await detail.getByTestId('asset-run-upstream').click();
    await expect.poll(() => detail.getByTestId('asset-queued').textContent()).toContain('models.build');
    expect(await detail.getByTestId('asset-queued').textContent()).toContain('+orders_by_status');
    await expect.poll(() => page.getByTestId('asset-node-model:orders_by_status').getAttribute('data-status'), { timeout: 180_000, interval: 1000 }).toBe('success');
    expect(await page.getByTestId('asset-node-model:stg_orders').getAttribute('data-status')).toBe('success');
    expect(await page.getByTestId('asset-node-test:not_null_stg_orders_id').getAttribute('data-status')).toBe('pass');
    await expect.poll(() => detail.getByTestId('asset-last-status').textContent()).toBe('success');
  });

  it('collapses a group into one node and shows the lake table’s schema', async () => {
    await page.getByTestId('asset-collapse-models/staging').check();
    await page.getByTestId('asset-node-group:models/staging').waitFor();
    expect(await page.getByTestId('asset-node-model:stg_orders').count()).toBe(0);
    await page.getByTestId('asset-collapse-models/staging').uncheck();
    await page.getByTestId('asset-search').fill('shop.orders');
    await page.getByTestId('asset-result-lake:shop.orders').click();
    const detail = page.getByTestId('asset-detail-lake:shop.orders');
    expect(await detail.getByTestId('asset-schema').textContent()).toContain('amount');
    expect(pageErrors).toEqual([]);
  });
});

describe('GET /metrics on the served app', () => {
  it('answers a token with the Prometheus exposition of the runs above, and 401 (not the login page) without one', async () => {
    const token = (await cli('tokens', 'create', '--user', ADMIN.name, '--name', 'prometheus')).trim();
    const res = await fetch(`${stack.baseUrl}/metrics`, { headers: { authorization: `Bearer ${token}` }, redirect: 'manual' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(text).toMatch(/^tributary_job_runs_total\{kind="models\.build",status="succeeded"\} [1-9]/m);
    expect(text).toMatch(/^tributary_lake_rows\{table="shop\.orders"\} 4$/m);
    expect(text).toMatch(/^tributary_workers\{state="alive"\} 1$/m);
    const anonymous = await fetch(`${stack.baseUrl}/metrics`, { redirect: 'manual' });
    expect(anonymous.status).toBe(401);
  });
});
