// The Tables page in Chromium against the real stack (`tributary serve` with
// its worker): build tables.json from a branch's own catalog — browse schemas,
// pick a table with its suggested key and watermark, save — then run an ETL
// with the saved file and find the rows in the lake.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import pg from 'pg';
import { stackDatabaseUrl, startStack, type Stack } from './stack';
import { openPage, requireChromium } from './browser';
import { signIn } from './sign-in';
import { tributary } from './cli';

const ADMIN = { name: 'admin', password: 'admin-e2e-password' };
let stack: Stack; let browser: Browser; let page: Page; let dir: string; let tablesFile: string; let url = '';
let pageErrors: string[] = [];

const call = (method: string, p: string, body?: unknown) => page.evaluate(async ([m, u, b]) => {
  const r = await fetch(u as string, { method: m as string, headers: { 'content-type': 'application/json' }, body: b === undefined ? undefined : JSON.stringify(b) });
  return { status: r.status, body: await r.json() };
}, [method, p, body] as const);

beforeAll(async () => {
  requireChromium();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trb-e2e-tables-'));
  tablesFile = path.join(dir, 'tables.json');
  fs.writeFileSync(tablesFile, '[]\n');
  stack = await startStack({ admin: ADMIN, env: { TRIBUTARY_TABLES_FILE: tablesFile } });
  // The branch: a schema in the stack's own embedded Postgres.
  url = stackDatabaseUrl(stack);
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query(`create schema shop;
    create table shop.customers (customer_id int primary key, name text not null, last_update timestamptz not null default now());
    insert into shop.customers (customer_id, name) select g, 'customer ' || g from generate_series(1, 25) g;
    create table shop.notes (body text)`);
  await c.end();
  ({ browser, page, pageErrors } = await openPage());
}, 20 * 60_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}, 120_000);

describe('a fresh server through the API with a token, before any page was opened', () => {
  it('lists and saves pipelines and flows (their routes get the job kinds from the server deps)', async () => {
    const r = await tributary(['tokens', 'create', '--user', ADMIN.name, '--name', 'first-call'], { TRIBUTARY_DATA_DIR: stack.dataDir, DATABASE_URL: '', LOG_LEVEL: 'error' });
    expect(r.status, r.stderr).toBe(0);
    const token = r.stdout.trim(); // printed alone on stdout, once
    const api = (method: string, p: string, body?: unknown) => fetch(`${stack.baseUrl}${p}`, {
      method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect((await api('GET', '/api/v1/flows')).status).toBe(200);
    const created = await api('POST', '/api/v1/pipelines', { name: 'first-check', kind: 'system.check', params: {} });
    expect(created.status, await created.clone().text()).toBe(201);
    expect(((await created.json()) as { command: string }).command).toBe('tributary pipelines run first-check');
    expect((await api('GET', '/api/v1/pipelines')).status).toBe(200);
  });
});

describe('Tables page', () => {
  it('builds tables.json from the branch catalog, and an ETL run loads what it names', async () => {
    await signIn(page, stack.baseUrl, ADMIN);
    expect((await call('POST', '/api/v1/connections', { name: 'b1', kind: 'postgres', isBranch: true, branchKey: 'b1', params: {}, secrets: { url } })).status).toBe(201);
    await page.goto(`${stack.baseUrl}/tables`);
    await page.getByRole('heading', { level: 1, name: 'Tables' }).waitFor();
    const browse = page.getByTestId('tables-browse');
    await browse.locator('select[name="connection"] option[value="b1"]').waitFor({ state: 'attached' });
    await browse.locator('select[name="connection"]').selectOption('b1');
    await browse.getByRole('button', { name: 'Browse schemas' }).click();
    await browse.locator('select[name="schema"] option[value="shop"]').waitFor({ state: 'attached', timeout: 60_000 });
    await browse.locator('select[name="schema"]').selectOption('shop');
    const row = browse.getByTestId('catalog-tables').locator('tr[data-table="shop.customers"]');
    await row.waitFor({ timeout: 60_000 });
    // Suggested: the primary key, and the change-time column as the watermark.
    expect(await row.getByLabel('key of shop.customers').inputValue()).toBe('customer_id');
    expect(await row.getByLabel('watermark of shop.customers').inputValue()).toBe('last_update');
    // A table without a primary key asks for one.
    expect(await browse.getByLabel('key of shop.notes').getAttribute('placeholder')).toMatch(/no primary key/);
    await row.getByLabel('add shop.customers').check();
    await browse.getByRole('button', { name: 'Add selected' }).click();
    await page.getByRole('button', { name: 'Save tables.json' }).click();
    await expect.poll(() => page.getByTestId('tables-note').textContent()).toBe('Saved.');
    expect(JSON.parse(fs.readFileSync(tablesFile, 'utf8'))).toEqual([{ table: 'shop.customers', unique_key: 'customer_id', cdc_column: 'last_update', category: 'masters' }]);
    await page.getByTestId('tables-entries').locator('tr[data-table="shop.customers"]').waitFor();

    // The saved file drives the loader.
    const job = await call('POST', '/api/v1/jobs', { kind: 'etl.run', params: { mode: 'INITIAL', branch: ['b1'] } });
    expect(job.status).toBe(202);
    let run: { status: string; error: string | null } = { status: 'queued', error: null };
    for (const deadline = Date.now() + 180_000; ['queued', 'running'].includes(run.status);) {
      if (Date.now() > deadline) throw new Error('etl run did not finish');
      await new Promise((r) => setTimeout(r, 500));
      run = (await call('GET', `/api/v1/jobs/${job.body.id}?logLimit=0`)).body;
    }
    expect(run.error ?? '').toBe('');
    expect(run.status).toBe('succeeded');
    const lake = (await call('GET', '/api/v1/lake/tables')).body as { tables: { name: string; liveRecords: number | null }[] };
    expect(lake.tables.find((t) => t.name === 'customers')?.liveRecords).toBe(25);
    expect(pageErrors).toEqual([]);
  });

  it('shows per entry which branches have the table (a connections.test job per branch)', async () => {
    // A second entry naming a table b1 does not have.
    const cur = (await call('GET', '/api/v1/tables')).body as { entries: unknown[]; version: string };
    const put = await call('PUT', '/api/v1/tables', { entries: [...cur.entries, { table: 'shop.gone', unique_key: 'id' }], version: cur.version });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    await page.goto(`${stack.baseUrl}/tables`);
    const entries = page.getByTestId('tables-entries');
    await entries.locator('th[data-branch="b1"]').waitFor();
    const cell = (table: string) => entries.locator(`tr[data-table="${table}"] td[data-branch="b1"]`);
    expect(await cell('shop.customers').getAttribute('data-presence')).toBe('unchecked');
    await page.getByRole('button', { name: 'Check branches' }).click();
    await expect.poll(() => cell('shop.customers').getAttribute('data-presence'), { timeout: 60_000 }).toBe('present');
    await expect.poll(() => cell('shop.gone').getAttribute('data-presence'), { timeout: 60_000 }).toBe('missing');
    expect(await cell('shop.customers').textContent()).toBe('present');
    expect(await cell('shop.gone').textContent()).toBe('missing');
    expect(pageErrors).toEqual([]);
  });
});
