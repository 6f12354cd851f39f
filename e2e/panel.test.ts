// The panel in Chromium against the real stack (`tributary serve`): sign-in,
// navigation, starting system.check and watching it complete, its live log,
// tokens, and what a viewer may not do — in the browser and through the API.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import pg from 'pg';
import { CHROMIUM, CHROMIUM_ARGS, startStack, type Stack } from './stack';
import { signIn } from './sign-in';

const ADMIN = { name: 'admin', password: 'admin-e2e-password' };
const VIEWER = { name: 'vera', password: 'viewer-e2e-password' };
const SHOTS = path.join(os.tmpdir(), 'tributary-e2e-shots');
const NAV = ['Overview', 'Connections', 'Tables', 'Pipelines', 'Flows', 'Runs', 'Lake', 'Data quality', 'Slices', 'Models', 'Settings'];

let stack: Stack;
let browser: Browser;
/** Console errors and uncaught page errors seen in any page, with the URL. */
const consoleErrors: string[] = [];
/**
 * Errors a test provokes on purpose (Chromium logs every 4xx answer to a
 * fetch): each entry allows one console line containing the text.
 */
const provoked: string[] = [];

async function newPage(ctx: BrowserContext): Promise<Page> {
  const page = await ctx.newPage();
  page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(`${page.url()}: ${m.text()}`); });
  page.on('pageerror', (e) => consoleErrors.push(`${page.url()}: ${e.message}`));
  page.setDefaultTimeout(20_000);
  return page;
}

async function login(page: Page, who: { name: string; password: string }) {
  await signIn(page, stack.baseUrl, who);
}

async function api(method: string, url: string, opts: { token?: string; body?: string } = {}) {
  const res = await fetch(stack.baseUrl + url, {
    method,
    headers: { ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}), 'content-type': 'application/json' },
    body: opts.body,
  });
  return { status: res.status, body: await res.json() };
}

beforeAll(async () => {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`e2e: ${CHROMIUM} is missing — apt-get install -y chromium`);
  stack = await startStack({ admin: ADMIN });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  fs.mkdirSync(SHOTS, { recursive: true });
}, 20 * 60_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
}, 120_000);

describe('panel', () => {
  let admin: BrowserContext;
  let page: Page;
  let runId = '';

  beforeAll(async () => { admin = await browser.newContext(); page = await newPage(admin); });
  afterAll(async () => { await admin?.close(); });

  it('sends strangers to the login page, and the first-run page is gone once a user exists', async () => {
    await page.goto(`${stack.baseUrl}/runs`);
    await page.waitForURL(/\/login(\?|$)/);
    await page.goto(`${stack.baseUrl}/setup`);
    await page.waitForURL(/\/login(\?|$)/);
  });

  it('signs the env admin in and every navigation entry opens a page', async () => {
    await login(page, ADMIN);
    expect(await page.getByTestId('user-name').textContent()).toBe(ADMIN.name);
    const nav = page.getByRole('navigation', { name: 'Main' });
    for (const label of NAV) {
      await nav.getByRole('link', { name: label, exact: true }).click();
      await page.getByRole('heading', { level: 1, name: label }).waitFor();
    }
    // Flows is wired: its list offers a new flow (e2e/flows.test.ts drives it).
    await nav.getByRole('link', { name: 'Flows', exact: true }).click();
    await page.getByRole('link', { name: 'New flow' }).waitFor();
  });

  it('starts system.check from Runs, watches it complete, and opens its log', async () => {
    await page.goto(`${stack.baseUrl}/runs`);
    await page.getByRole('button', { name: 'Start job' }).click();
    const form = page.getByRole('form', { name: 'Start a job' });
    await form.locator('option[value="system.check"]').waitFor({ state: 'attached' });
    await expect(form.getByRole('combobox').inputValue()).resolves.toBe('system.check');
    await form.getByRole('button', { name: 'Start', exact: true }).click();
    const logLink = page.getByRole('status').getByRole('link', { name: 'Open its log' });
    runId = (await logLink.getAttribute('href'))!.split('/').pop()!;
    expect(runId).toMatch(/^[0-9a-f-]{36}$/);
    // The list updates by itself: no reload.
    await page.locator(`tr[data-run-id="${runId}"] [data-status="succeeded"]`).waitFor({ timeout: 30_000 });
    await expect(page.locator(`tr[data-run-id="${runId}"] [role=progressbar]`).getAttribute('aria-valuenow')).resolves.toBe('100');
    await page.screenshot({ path: path.join(SHOTS, 'runs.png'), fullPage: true });

    await logLink.click();
    await page.waitForURL(`${stack.baseUrl}/runs/${runId}`);
    const log = page.getByTestId('run-log');
    await log.getByText('database reachable').waitFor();
    await log.getByText('data folder writable').waitFor();
    await expect(page.getByText('succeeded').first().isVisible()).resolves.toBe(true);
    await page.screenshot({ path: path.join(SHOTS, 'run.png'), fullPage: true });
  });

  it('shows a long run live and cancels it', async () => {
    await page.goto(`${stack.baseUrl}/runs`);
    await page.getByRole('button', { name: 'Start job' }).click();
    const form = page.getByRole('form', { name: 'Start a job' });
    await form.getByRole('tab', { name: 'Advanced (JSON)' }).click();
    await form.getByLabel('Parameters (JSON)').fill('{"holdSeconds": "soon"}');
    await form.getByRole('button', { name: 'Start', exact: true }).click();
    // The server's validation error names the field.
    provoked.push('status of 400 (Bad Request)');
    await expect(form.getByRole('alert').textContent()).resolves.toContain('params.holdSeconds');
    await form.getByLabel('Parameters (JSON)').fill('{"holdSeconds": 120}');
    await form.getByRole('button', { name: 'Start', exact: true }).click();
    const id = (await page.getByRole('status').getByRole('link', { name: 'Open its log' }).getAttribute('href'))!.split('/').pop()!;
    await page.goto(`${stack.baseUrl}/runs/${id}`);
    await page.locator('[data-status="running"]').first().waitFor({ timeout: 30_000 });
    await page.getByTestId('run-log').getByText('database reachable').waitFor();
    await page.getByRole('button', { name: 'Cancel run' }).click();
    await page.getByRole('button', { name: 'Yes, cancel' }).click();
    await page.locator('[data-status="cancelled"]').first().waitFor({ timeout: 30_000 });
  });

  it('creates an API token shown once, which works, then revokes it', async () => {
    await page.goto(`${stack.baseUrl}/settings`);
    await page.getByLabel('Token name').fill('e2e-admin');
    await page.getByRole('button', { name: 'Create token' }).click();
    const token = (await page.getByTestId('new-token-value').textContent())!;
    expect(token).toMatch(/^trb_/);
    expect((await api('GET', `/api/v1/jobs/${runId}`, { token })).body.status).toBe('succeeded');
    // the Iceberg REST catalog, as a catalog client reaches it through the served panel: JSON to a
    // token, 401 (not the login page's redirect) without one
    const cfg = await api('GET', '/iceberg/v1/config', { token });
    expect(cfg.status).toBe(200);
    expect(cfg.body).toHaveProperty('defaults');
    expect((await api('GET', '/iceberg/v1/namespaces', { token })).body).toHaveProperty('namespaces');
    const anon = await fetch(`${stack.baseUrl}/iceberg/v1/namespaces`, { redirect: 'manual' });
    expect(anon.status).toBe(401);
    expect((await anon.json()).error.type).toBe('NotAuthorizedException');
    // After a reload it is never shown again.
    await page.reload();
    await page.getByTestId('tokens-table').getByText('e2e-admin').waitFor();
    expect(await page.content()).not.toContain(token);
    page.once('dialog', (d) => void d.accept());
    await page.getByTestId('tokens-table').getByRole('row', { name: /e2e-admin/ }).getByRole('button', { name: 'Revoke' }).click();
    await page.getByTestId('tokens-table').getByText('e2e-admin').waitFor({ state: 'detached' }).catch(async () => {
      // The last token gone leaves no table at all.
      await page.getByText('No active tokens.').waitFor();
    });
    expect((await api('GET', '/api/v1/jobs', { token })).status).toBe(401);
  });

  it('adds a viewer from Settings', async () => {
    await page.goto(`${stack.baseUrl}/settings`);
    await page.locator('input[name="user-name"]').fill(VIEWER.name);
    await page.locator('input[name="user-password"]').fill(VIEWER.password);
    await page.locator('select[name="user-role"]').selectOption('viewer');
    await page.getByRole('button', { name: 'Add user' }).click();
    await page.getByTestId('users-table').getByText(VIEWER.name).waitFor();
  });

  it('signs out', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/login(\?|$)/);
    await page.goto(`${stack.baseUrl}/runs`);
    await page.waitForURL(/\/login(\?|$)/);
  });
});

describe('engine pages', () => {
  let ctx: BrowserContext;
  let page: Page;
  const SECRET_PW = 'e2e-branch-secret-pw';
  /** Wait for a job to end through the API (the page's session), returning its status. */
  const waitJob = async (id: string, timeoutMs = 180_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const run = await page.evaluate((u) => fetch(u).then((r) => r.json()), `/api/v1/jobs/${id}`);
      if (['succeeded', 'failed', 'cancelled'].includes(run.status)) return run as { status: string; error: string | null };
      if (Date.now() > deadline) throw new Error(`e2e: job ${id} still ${run.status}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  };
  const startedId = async () => (await page.getByRole('status').getByRole('link', { name: 'Follow its log' }).getAttribute('href'))!.split('/').pop()!;

  beforeAll(async () => { ctx = await browser.newContext(); page = await newPage(ctx); await login(page, ADMIN); });
  afterAll(async () => { await ctx?.close(); });

  it('each engine page opens and says what to do next when empty', async () => {
    for (const [href, testId, text] of [
      ['/connections', 'connections-empty', 'tributary connections import'],
      ['/pipelines', 'pipelines-empty', 'Run ETL'],
      ['/lake', 'lake-empty', 'tributary lake import'],
      ['/data-quality', 'dq-empty', 'Run check'],
      ['/slices', 'slices-empty', 'tributary slices run'],
    ]) {
      await page.goto(`${stack.baseUrl}${href}`);
      await expect(page.getByTestId(testId).textContent()).resolves.toContain(text);
      await page.screenshot({ path: path.join(SHOTS, `empty-${href.slice(1)}.png`), fullPage: true });
    }
  });

  it('an admin adds a branch connection with kind-specific fields; the secret is write-only', async () => {
    await page.goto(`${stack.baseUrl}/connections`);
    await page.getByRole('button', { name: 'Add connection' }).click();
    const form = page.getByRole('form', { name: 'Add a connection' });
    await form.locator('select[name="kind"]').selectOption('oracle');
    await form.locator('input[name="params.service_name"]').waitFor();
    await form.locator('select[name="kind"]').selectOption('postgres');
    await form.locator('input[name="name"]').fill('e2e_branch');
    await form.locator('input[name="branchKey"]').fill('e2e');
    await form.locator('input[name="params.database"]').fill('shop');
    await form.locator('input[name="secrets.password"]').fill(SECRET_PW);
    await form.getByRole('button', { name: 'Save connection' }).click();
    // No host: the server names the field.
    provoked.push('status of 400 (Bad Request)');
    await expect(form.getByRole('alert').textContent()).resolves.toContain('params.host');
    await form.locator('input[name="params.host"]').fill('127.0.0.1');
    await form.locator('input[name="params.port"]').fill('1');
    await form.getByRole('button', { name: 'Save connection' }).click();
    await page.getByTestId('connections-table').locator('tr[data-connection="e2e_branch"]').waitFor();
    await expect(page.getByTestId('connections-table').textContent()).resolves.toContain('password ••••');
    expect(await page.content()).not.toContain(SECRET_PW);
    await page.screenshot({ path: path.join(SHOTS, 'connections.png'), fullPage: true });
    const api = await page.evaluate(() => fetch('/api/v1/connections').then((r) => r.text()));
    expect(api).toContain('e2e_branch');
    expect(api).not.toContain(SECRET_PW);
  });

  it('Run ETL (self-test) from Pipelines fills the control table, the run log and the lake', async () => {
    await page.goto(`${stack.baseUrl}/pipelines`);
    await page.getByRole('button', { name: 'Run ETL' }).click();
    const form = page.getByRole('form', { name: 'Run ETL' });
    await form.locator('select[name="mode"]').selectOption('INITIAL');
    await form.locator('input[name="selfTest"]').check();
    await form.locator('input[name="keepStaging"]').check();
    await form.getByRole('button', { name: 'Start ETL run' }).click();
    const id = await startedId();
    const run = await waitJob(id);
    expect(run.error ?? '').toBe('');
    expect(run.status).toBe('succeeded');
    await page.getByTestId('etl-control-table').locator('[data-status="SUCCESS"]').first().waitFor();
    await page.getByTestId('etl-runs-table').locator('[data-status="SUCCESS"]').first().waitFor();
    await page.screenshot({ path: path.join(SHOTS, 'pipelines.png'), fullPage: true });

    await page.goto(`${stack.baseUrl}/lake`);
    const first = page.getByTestId('lake-tables').getByRole('link').first();
    const ident = (await first.textContent())!;
    await page.screenshot({ path: path.join(SHOTS, 'lake.png'), fullPage: true });
    await first.click();
    await page.getByRole('heading', { level: 1, name: ident }).waitFor();
    await expect(page.getByTestId('lake-schema').textContent()).resolves.toContain('BRANCH_ID');
    await page.getByTestId('lake-partitions').waitFor();
    await page.getByTestId('lake-snapshots').getByText('current').waitFor();
    await page.screenshot({ path: path.join(SHOTS, 'lake-table.png'), fullPage: true });
  });

  it('Run check (self-test) from Data quality shows OK per table × branch', async () => {
    await page.goto(`${stack.baseUrl}/data-quality`);
    await page.getByRole('button', { name: 'Run check' }).click();
    const form = page.getByRole('form', { name: 'Run check' });
    await form.locator('input[name="selfTest"]').check();
    await form.getByRole('button', { name: 'Start check' }).click();
    const run = await waitJob(await startedId());
    expect(run.error ?? '').toBe('');
    const table = page.getByTestId('dq-table');
    await table.locator('[data-status="OK"]').first().waitFor();
    await table.locator('tbody tr').first().click();
    await page.getByText('hashed columns').waitFor();
    await page.screenshot({ path: path.join(SHOTS, 'data-quality.png'), fullPage: true });
  });

  it('a slice run (native executor) shows on Slices and its live board', async () => {
    // Source and target tables in the stack's own embedded Postgres.
    const rec = JSON.parse(fs.readFileSync(path.join(stack.dataDir, 'pg.json'), 'utf8')) as { port: number; user: string; password: string };
    const url = `postgres://${rec.user}:${encodeURIComponent(rec.password)}@127.0.0.1:${rec.port}/tributary`;
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    try {
      await pool.query(`create table e2e_src as select g as id, md5(g::text) as v from generate_series(1, 20000) g;
        create table e2e_dst (id int primary key, v text)`);
    } finally { await pool.end(); }
    const queryFileText = [0, 1, 2, 3].map((i) => `select id, v from e2e_src where id > ${i * 5000} and id <= ${(i + 1) * 5000}|public.e2e_dst`).join('\n');
    // A job names its source and target by connection (never a URL with credentials).
    const made = await page.evaluate((body) => fetch('/api/v1/connections', { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then((r) => r.status),
      JSON.stringify({ name: 'e2e-slices', kind: 'postgres', params: {}, secrets: { url } }));
    expect(made).toBe(201);
    const started = await page.evaluate((body) => fetch('/api/v1/jobs', { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then((r) => r.json()),
      JSON.stringify({ kind: 'slices.run', params: { runId: 1, executor: 'native', concurrency: 2, monitorInterval: 0.2, deployWait: 0, queryFileText, connection: 'e2e-slices', targetConnection: 'e2e-slices' } }));
    const run = await waitJob(started.id);
    expect(run.error ?? '').toBe('');

    await page.goto(`${stack.baseUrl}/slices`);
    await page.getByTestId('slice-runs').getByRole('link', { name: 'run 1' }).click();
    await page.waitForURL(`${stack.baseUrl}/slices/1`);
    const board = page.getByTestId('slice-board');
    await expect(board.getByRole('progressbar').getAttribute('aria-valuenow')).resolves.toBe('100');
    await page.getByTestId('slices-completed').getByText('#4').waitFor();
    await page.screenshot({ path: path.join(SHOTS, 'slice-board.png'), fullPage: true });

    // An unknown run says so (and stops polling).
    provoked.push('status of 404 (Not Found)');
    await page.goto(`${stack.baseUrl}/slices/12345`);
    await page.getByText('slice run 12345 not found').waitFor();
  });
});

describe('a viewer', () => {
  let ctx: BrowserContext;
  let page: Page;
  beforeAll(async () => { ctx = await browser.newContext(); page = await newPage(ctx); });
  afterAll(async () => { await ctx?.close(); });

  it('sees runs but no start or cancel button', async () => {
    await login(page, VIEWER);
    await page.goto(`${stack.baseUrl}/runs`);
    await page.getByTestId('runs-table').waitFor();
    expect(await page.getByRole('button', { name: 'Start job' }).count()).toBe(0);
    await page.getByTestId('runs-table').getByRole('link', { name: 'Log' }).first().click();
    await page.getByTestId('run-log').waitFor();
    expect(await page.getByRole('button', { name: /Cancel/ }).count()).toBe(0);
  });

  it('sees the engine pages without their start or add buttons', async () => {
    await page.goto(`${stack.baseUrl}/pipelines`);
    await page.getByTestId('etl-control-table').waitFor();
    expect(await page.getByRole('button', { name: 'Run ETL' }).count()).toBe(0);
    await page.goto(`${stack.baseUrl}/data-quality`);
    await page.getByTestId('dq-table').waitFor();
    expect(await page.getByRole('button', { name: 'Run check' }).count()).toBe(0);
    await page.goto(`${stack.baseUrl}/connections`);
    await page.getByTestId('connections-table').waitFor();
    expect(await page.getByRole('button', { name: 'Add connection' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Delete' }).count()).toBe(0);
  });

  it('gets 403 when starting a job, by session and by its own token; nothing is created', async () => {
    provoked.push('status of 403 (Forbidden)');
    const before = (await page.evaluate(() => fetch('/api/v1/jobs?limit=500').then((r) => r.json()))).runs.length;
    const bySession = await page.evaluate(() => fetch('/api/v1/jobs', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"kind":"system.check"}' })
      .then(async (r) => ({ status: r.status, body: await r.json() })));
    expect(bySession.status).toBe(403);
    expect(bySession.body.error.code).toBe('forbidden');

    await page.goto(`${stack.baseUrl}/settings`);
    await page.getByLabel('Token name').fill('viewer-script');
    await page.getByRole('button', { name: 'Create token' }).click();
    const token = (await page.getByTestId('new-token-value').textContent())!;
    const byToken = await api('POST', '/api/v1/jobs', { token, body: '{"kind":"system.check"}' });
    expect(byToken.status).toBe(403);
    expect(byToken.body.error.code).toBe('forbidden');
    expect((await api('GET', '/api/v1/jobs?limit=500', { token })).body.runs.length).toBe(before);
    expect(await page.getByRole('heading', { name: 'Users' }).count()).toBe(0);
  });
});

describe('the API without a browser', () => {
  it('no token → 401; bad input → 400 with the field', async () => {
    const none = await api('POST', '/api/v1/jobs', { body: '{"kind":"system.check"}' });
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('unauthorized');

    // An operator token made through the API by the admin.
    const adminToken = await (async () => {
      const ctx = await browser.newContext();
      const p = await newPage(ctx);
      await login(p, ADMIN);
      const t = await p.evaluate(() => fetch('/api/v1/tokens', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"e2e-api"}' }).then((r) => r.json()));
      await ctx.close();
      return t.token as string;
    })();
    const malformed = await api('POST', '/api/v1/jobs', { token: adminToken, body: '{"kind":' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.field).toBe('body');
    const unknown = await api('POST', '/api/v1/jobs', { token: adminToken, body: '{"kind":"nope.nothing"}' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.field).toBe('kind');
    const badPayload = await api('POST', '/api/v1/jobs', { token: adminToken, body: '{"kind":"system.check","params":{"holdSeconds":-1}}' });
    expect(badPayload.status).toBe(400);
    expect(badPayload.body.error.field).toBe('params.holdSeconds');
    const big = await api('POST', '/api/v1/jobs', { token: adminToken, body: JSON.stringify({ kind: 'system.check', params: { x: 'y'.repeat(2_000_000) } }) });
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe('payload_too_large');
    const ok = await api('POST', '/api/v1/jobs', { token: adminToken, body: '{"kind":"system.check"}' });
    expect(ok.status).toBe(202);
    expect(ok.body.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('left no console errors in any page', () => {
    const unexpected = consoleErrors.filter((line) => {
      const i = provoked.findIndex((p) => line.includes(p));
      if (i < 0) return true;
      provoked.splice(i, 1);
      return false;
    });
    expect(unexpected).toEqual([]);
  });
});
