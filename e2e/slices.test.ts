// The slices workflow in Chromium against the real stack (`tributary serve`):
// split a table into a registered run, run it from the board with the native
// executor, reconcile it from the board (per-slice counts equal), and a viewer
// who sees no action buttons and gets 403 from the actions API.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import pg from 'pg';
import { CHROMIUM, CHROMIUM_ARGS, startStack, type Stack } from './stack';
import { signIn } from './sign-in';

const ADMIN = { name: 'admin', password: 'admin-e2e-password' };
const VIEWER = { name: 'vince', password: 'viewer-e2e-password' };
const RUN = 5;
const ROWS = 20_000;

let stack: Stack;
let browser: Browser;
let url = '';
const pageErrors: string[] = [];

async function newPage(ctx: BrowserContext): Promise<Page> {
  const page = await ctx.newPage();
  page.on('pageerror', (e) => pageErrors.push(`${page.url()}: ${e.message}`));
  page.setDefaultTimeout(30_000);
  return page;
}

async function login(page: Page, who: { name: string; password: string }) {
  await signIn(page, stack.baseUrl, who);
}

/** A same-origin call with the page's session. */
const call = (page: Page, method: string, path: string, body?: unknown) => page.evaluate(async ([m, p, b]) => {
  const r = await fetch(p as string, { method: m as string, headers: { 'content-type': 'application/json' }, body: b === undefined ? undefined : JSON.stringify(b) });
  return { status: r.status, body: await r.json() };
}, [method, path, body] as const);

async function sql<T extends pg.QueryResultRow>(text: string): Promise<T[]> {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  try { return (await pool.query<T>(text)).rows; } finally { await pool.end(); }
}

beforeAll(async () => {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`e2e: ${CHROMIUM} is missing — apt-get install -y chromium`);
  stack = await startStack({ admin: ADMIN });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  // Source and target tables in the stack's own embedded Postgres.
  const rec = JSON.parse(fs.readFileSync(`${stack.dataDir}/pg.json`, 'utf8')) as { port: number; user: string; password: string };
  url = `postgres://${rec.user}:${encodeURIComponent(rec.password)}@127.0.0.1:${rec.port}/tributary`;
  await sql(`create table e2e_src (id int primary key, v text);
    insert into e2e_src select g, md5(g::text) from generate_series(1, ${ROWS}) g; analyze e2e_src;
    create table e2e_dst (id int primary key, v text)`);
}, 20 * 60_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
}, 120_000);

describe('slices from the panel', () => {
  let ctx: BrowserContext;
  let page: Page;
  beforeAll(async () => { ctx = await browser.newContext(); page = await newPage(ctx); await login(page, ADMIN); });
  afterAll(async () => { await ctx?.close(); });

  const waitJob = async (id: string) => {
    for (const deadline = Date.now() + 180_000; ;) {
      const r = (await call(page, 'GET', `/api/v1/jobs/${id}?logLimit=0`)).body as { status: string; error: string | null };
      if (['succeeded', 'failed', 'cancelled'].includes(r.status)) return r;
      if (Date.now() > deadline) throw new Error(`e2e: job ${id} still ${r.status}`);
      await new Promise((res) => setTimeout(res, 500));
    }
  };

  it('splits a table into a registered run that has not started', async () => {
    expect((await call(page, 'POST', '/api/v1/connections', { name: 'e2e-slices', kind: 'postgres', params: {}, secrets: { url } })).status).toBe(201);
    const split = await call(page, 'POST', '/api/v1/jobs', { kind: 'slices.split', params: {
      query: 'SELECT s.* FROM public.e2e_src s WHERE ~SPLIT~', table: 'public.e2e_src', target: 'public.e2e_dst',
      strategy: 'column', column: 'id', chunks: 4, runId: RUN, connection: 'e2e-slices' } });
    expect(split.status).toBe(202);
    const done = await waitJob(split.body.id);
    expect(done.error ?? '').toBe('');
    expect(done.status).toBe('succeeded');

    await page.goto(`${stack.baseUrl}/slices`);
    const row = page.locator(`[data-testid="slice-runs"] tr[data-run="${RUN}"]`);
    await row.getByText('not started').waitFor();
    // A new run has no registration number in its label.
    expect((await row.locator('td').first().textContent())?.trim()).toBe(`run ${RUN}`);
    await row.getByRole('link', { name: `run ${RUN}` }).click();
    await page.waitForURL(`${stack.baseUrl}/slices/${RUN}`);
    await page.getByText('registered, not started').waitFor();
    expect(await page.getByText(/Striim API retries/).count()).toBe(0);
  });

  it('runs it from the board with the native executor: the target holds every source row', async () => {
    await page.getByTestId('board-actions').getByRole('button', { name: 'Run', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: `Run run ${RUN}` });
    await dialog.locator('select[name="connection"] option[value="e2e-slices"]').waitFor({ state: 'attached' });
    await dialog.locator('select[name="executor"]').selectOption('native');
    await dialog.locator('select[name="connection"]').selectOption('e2e-slices');
    await dialog.locator('select[name="targetConnection"]').selectOption('e2e-slices');
    await dialog.getByRole('button', { name: 'Confirm run' }).click();
    await page.locator('[data-testid="action-result"][data-status="succeeded"]').waitFor({ timeout: 180_000 });
    // The board refreshes after the run ends (a fast native run ends before its next poll): wait for it.
    await expect.poll(() => page.getByTestId('slice-board').getByRole('progressbar').getAttribute('aria-valuenow'), { timeout: 30_000 }).toBe('100');
    await page.getByText('native executor').waitFor();
    expect(await page.getByText(/Striim API retries/).count()).toBe(0);
    const [src] = await sql<{ n: number; h: string }>(`select count(*)::int n, md5(string_agg(id || v, ',' order by id)) h from e2e_src`);
    const [dst] = await sql<{ n: number; h: string }>(`select count(*)::int n, md5(string_agg(id || v, ',' order by id)) h from e2e_dst`);
    expect(dst).toEqual(src);
    expect(src.n).toBe(ROWS);
  });

  it('reconciles from the board: each slice has equal counts on both sides', async () => {
    await page.getByTestId('board-actions').getByRole('button', { name: 'Reconcile' }).click();
    const dialog = page.getByRole('dialog', { name: `Reconcile run ${RUN}` });
    await dialog.locator('select[name="connection"] option[value="e2e-slices"]').waitFor({ state: 'attached' });
    await dialog.locator('select[name="connection"]').selectOption('e2e-slices');
    await dialog.locator('select[name="targetConnection"]').selectOption('e2e-slices');
    await dialog.getByRole('button', { name: 'Confirm reconcile' }).click();
    const table = page.getByTestId('reconcile-result');
    await table.waitFor({ timeout: 120_000 });
    const deltas = await table.locator('td[data-delta]').evaluateAll((tds) => tds.map((td) => td.getAttribute('data-delta')));
    expect(deltas).toEqual(['0', '0', '0', '0', '0']);
    expect((await table.locator('tr[data-slice="total"] td').nth(2).textContent())?.replace(/\D/g, '')).toBe(String(ROWS));
  });

  it('plans a split from the Slices page, runs it to the lake on its table\'s key, and reconciles it with the run\'s own source and target', async () => {
    const LAKE_RUN = 6;
    await page.goto(`${stack.baseUrl}/slices`);
    await page.getByRole('button', { name: 'Plan a split' }).click();
    const form = page.getByTestId('plan-split');
    await form.locator('select[name="connection"] option[value="e2e-slices"]').waitFor({ state: 'attached' });
    await form.locator('select[name="connection"]').selectOption('e2e-slices');
    await form.locator('input[name="table"]').fill('public.e2e_src');
    await form.locator('input[name="target"]').fill('e2e.src_lake');
    await form.locator('select[name="strategy"]').selectOption('column');
    await form.locator('input[name="column"]').fill('id');
    await form.locator('input[name="chunks"]').fill('4');
    await form.locator('input[name="runId"]').fill(String(LAKE_RUN));
    await form.getByRole('button', { name: 'Split', exact: true }).click();
    await form.locator('[data-testid="plan-split-status"][data-status="succeeded"]').waitFor({ timeout: 120_000 });
    await form.getByRole('link', { name: `open run ${LAKE_RUN}` }).click();
    await page.waitForURL(`${stack.baseUrl}/slices/${LAKE_RUN}`);

    // Run to the lake with no merge keys typed: the table's primary key (id) is used.
    await page.getByTestId('board-actions').getByRole('button', { name: 'Run', exact: true }).click();
    const run = page.getByRole('dialog', { name: `Run run ${LAKE_RUN}` });
    await run.locator('select[name="connection"] option[value="e2e-slices"]').waitFor({ state: 'attached' });
    await run.locator('select[name="executor"]').selectOption('native');
    await run.locator('select[name="connection"]').selectOption('e2e-slices');
    await run.locator('input[name="lake"]').check();
    expect(await run.locator('input[name="mergeKeys"]').getAttribute('placeholder')).toMatch(/primary key/);
    await run.getByRole('button', { name: 'Confirm run' }).click();
    await page.locator('[data-testid="action-result"][data-status="succeeded"]').waitFor({ timeout: 180_000 });
    await page.getByText('native executor → lake').waitFor();

    // Reconcile with what the dialog offers: the run's own source, and the lake it wrote.
    await page.reload();
    await page.getByTestId('board-actions').getByRole('button', { name: 'Reconcile' }).click();
    const rec = page.getByRole('dialog', { name: `Reconcile run ${LAKE_RUN}` });
    await rec.locator('select[name="connection"] option[value="e2e-slices"]').waitFor({ state: 'attached' });
    expect(await rec.locator('select[name="connection"]').inputValue()).toBe('e2e-slices');
    expect(await rec.locator('input[name="lake"]').isChecked()).toBe(true);
    await rec.getByRole('button', { name: 'Confirm reconcile' }).click();
    const table = page.getByTestId('reconcile-result');
    await table.waitFor({ timeout: 120_000 });
    const deltas = await table.locator('td[data-delta]').evaluateAll((tds) => tds.map((td) => td.getAttribute('data-delta')));
    expect(deltas.length).toBe(5);
    expect(deltas.every((d) => d === '0')).toBe(true);
    expect((await table.locator('tr[data-slice="total"] td').nth(2).textContent())?.replace(/\D/g, '')).toBe(String(ROWS));
  });

  it('a viewer sees the board without action buttons, and the actions API answers 403', async () => {
    expect((await call(page, 'POST', '/api/v1/users', { name: VIEWER.name, password: VIEWER.password, role: 'viewer' })).status).toBe(201);
    const vctx = await browser.newContext();
    try {
      const v = await newPage(vctx);
      await login(v, VIEWER);
      await v.goto(`${stack.baseUrl}/slices/${RUN}`);
      await v.getByTestId('slice-board').waitFor();
      expect(await v.getByTestId('board-actions').count()).toBe(0);
      for (const name of ['Run', 'Reset', 'Reconcile', 'Clear']) expect(await v.getByRole('button', { name, exact: true }).count()).toBe(0);
      for (const action of ['reconcile', 'reset', 'clear', 'run']) {
        const r = await call(v, 'POST', `/api/v1/slices/runs/${RUN}/actions`, { action });
        expect(r.status, action).toBe(403);
        expect(r.body.error.code).toBe('forbidden');
      }
    } finally { await vctx.close(); }
    expect(pageErrors).toEqual([]);
  });
});
