// The Connections, Lake, Data-quality and Overview pages in Chromium against
// the real stack (`tributary serve`, its worker and embedded Postgres): add a
// connection that points at a closed port and Test it (unreachable), Edit it
// to the right port leaving the stored password blank and Test again
// (reachable, with the server's version), an ETL self-test, the lake row
// preview by branch, Compact and Remove orphan files from the Lake page, two DQ self-tests and their
// trend, and a screenshot of every page under test-results/screenshots/.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startJob as postJob, waitJob as pollJob } from './jobs';
import { CHROMIUM, CHROMIUM_ARGS, ROOT, startStack, type Stack } from './stack';
import { signIn } from './sign-in';
import { closedPort } from '../lib/testing/closed-port';

const ADMIN = { name: 'admin', password: 'admin-e2e-password' };
const SHOTS = path.join(ROOT, 'test-results', 'screenshots');
let stack: Stack;
let browser: Browser;
let ctx: BrowserContext;
let page: Page;
/** A branch of the self-test's lake tables (read from the row preview). */
let branch = '';
/** Uncaught errors in any page (a chart that throws while rendering, say). */
const pageErrors: string[] = [];

const startJob = (kind: string, params: Record<string, unknown>) => postJob(page, kind, params);
const waitJob = (id: string) => pollJob(page, id);
const shot = (name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });

beforeAll(async () => {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`e2e: ${CHROMIUM} is missing — apt-get install -y chromium`);
  stack = await startStack({ admin: ADMIN });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  fs.mkdirSync(SHOTS, { recursive: true });
  ctx = await browser.newContext({ viewport: { width: 1360, height: 900 } });
  page = await ctx.newPage();
  page.on('pageerror', (e) => pageErrors.push(`${page.url()}: ${e.message}`));
  page.setDefaultTimeout(30_000);
  await signIn(page, stack.baseUrl, ADMIN);
}, 20 * 60_000);

afterAll(async () => {
  await ctx?.close();
  await browser?.close();
  await stack?.stop();
}, 120_000);

describe('pages', () => {
  it('Overview shows the worker alive with its heartbeat, and the runs-per-hour chart', async () => {
    await page.goto(`${stack.baseUrl}/`);
    await page.getByTestId('workers-table').getByText('alive').waitFor();
    await page.getByTestId('runs-chart').locator('svg').first().waitFor();
    await shot('overview');
  });

  it('adds a connection, Test says unreachable; Edit with a blank password keeps it, and Test then reaches the server', async () => {
    const rec = JSON.parse(fs.readFileSync(path.join(stack.dataDir, 'pg.json'), 'utf8')) as { port: number; user: string; password: string };
    await page.goto(`${stack.baseUrl}/connections`);
    await page.getByRole('button', { name: 'Add connection' }).click();
    const form = page.getByRole('form', { name: 'Add a connection' });
    // Save says why it is disabled.
    await expect(form.getByTestId('save-why').textContent()).resolves.toContain('Name is missing');
    expect(await form.getByRole('button', { name: 'Save connection' }).isDisabled()).toBe(true);
    await form.locator('select[name="kind"]').selectOption('postgres');
    await form.locator('input[name="name"]').fill('e2e_pg');
    await expect(form.getByTestId('save-why').textContent()).resolves.toContain('Branch key is missing');
    await form.locator('input[name="isBranch"]').uncheck();
    await form.locator('input[name="params.host"]').fill('127.0.0.1');
    await form.locator('input[name="params.port"]').fill(String(await closedPort()));
    await form.locator('input[name="params.database"]').fill('tributary');
    await form.locator('input[name="params.user"]').fill(rec.user);
    await form.locator('input[name="secrets.password"]').fill(rec.password);
    await form.getByRole('button', { name: 'Save connection' }).click();
    const row = page.locator('tr[data-connection="e2e_pg"]');
    await row.waitFor();

    await row.getByRole('button', { name: 'Test' }).click();
    await page.getByTestId('test-outcome').locator('[data-reachable="false"]').waitFor({ timeout: 90_000 });
    await expect(page.getByTestId('test-outcome').textContent()).resolves.toMatch(/cannot connect/);

    await row.getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByRole('form', { name: 'Edit connection e2e_pg' });
    await expect(edit.locator('input[name="params.host"]').inputValue()).resolves.toBe('127.0.0.1');
    expect(await edit.locator('input[name="secrets.password"]').inputValue()).toBe('');
    await edit.locator('input[name="params.port"]').fill(String(rec.port));
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await edit.waitFor({ state: 'detached' });
    await row.locator('td', { hasText: `127.0.0.1:${rec.port}/` }).waitFor(); // the list refetches after the save

    await row.getByRole('button', { name: 'Test' }).click();
    await page.getByTestId('test-outcome').locator('[data-reachable="true"]').waitFor({ timeout: 90_000 });
    await expect(page.getByTestId('server-version').textContent()).resolves.toMatch(/^PostgreSQL \d+/);
    expect(await page.content()).not.toContain(rec.password);
    await shot('connections');
  });

  it('previews lake rows by branch and compacts the table from the Lake page', async () => {
    const etl = await waitJob(await startJob('etl.run', { mode: 'INITIAL', selfTest: true, keepStaging: true }));
    expect(etl.error ?? '').toBe('');
    await page.goto(`${stack.baseUrl}/lake`);
    await page.getByTestId('freshness-map').waitFor();
    await shot('lake');
    const first = page.getByTestId('lake-tables').getByRole('link').first();
    const ident = (await first.textContent())!;
    await first.click();
    await page.getByRole('heading', { level: 1, name: ident }).waitFor();
    await expect(page.locator('.crumbs').textContent()).resolves.toBe(`Lake / ${ident}`);
    const rows = page.getByTestId('lake-rows');
    await rows.waitFor();
    const all = await rows.locator('tbody tr').count();
    expect(all).toBeGreaterThan(0);
    expect(all).toBeLessThanOrEqual(100);

    const col = (await rows.locator('thead th').allTextContents()).indexOf('BRANCH_ID');
    expect(col).toBeGreaterThanOrEqual(0);
    const select = page.getByTestId('rows-branch');
    const branches = (await select.locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value))).filter(Boolean);
    expect(branches.length).toBeGreaterThan(0);
    branch = branches[0];
    await select.selectOption(branch);
    await page.waitForFunction(({ b, c }) => {
      const cells = [...document.querySelectorAll('[data-testid="lake-rows"] tbody tr')].map((tr) => tr.children[c]?.textContent);
      return cells.length > 0 && cells.every((x) => x === b);
    }, { b: branches[0], c: col });
    await page.getByTestId('snapshot-chart').locator('svg').first().waitFor();

    page.once('dialog', (d) => void d.accept());
    await page.getByTestId('lake-actions').getByRole('button', { name: 'Compact' }).click();
    await page.locator('[data-testid="lake-action-status"][data-status="succeeded"]').waitFor({ timeout: 120_000 });

    // Remove orphan files: a dry run previews a planted old orphan, the confirmed deletion removes it
    const location = (await page.locator('.page-sub code').textContent())!;
    const orphan = path.join(fileURLToPath(location), 'data', 'e2e-never-committed.parquet');
    fs.writeFileSync(orphan, 'orphan');
    const tenDays = new Date(Date.now() - 10 * 86_400_000);
    fs.utimesSync(orphan, tenDays, tenDays);
    await page.getByTestId('lake-actions').getByRole('button', { name: 'Remove orphan files' }).click();
    await page.getByTestId('lake-orphans-outcome').filter({ hasText: '1 orphan files (6 B) would be deleted' }).waitFor({ timeout: 120_000 });
    expect(fs.existsSync(orphan)).toBe(true);
    page.once('dialog', (d) => void d.accept());
    await page.getByTestId('lake-orphans-delete').click();
    await page.getByTestId('lake-orphans-outcome').filter({ hasText: 'deleted 1 orphan files (6 B)' }).waitFor({ timeout: 120_000 });
    expect(fs.existsSync(orphan)).toBe(false);
    await shot('lake-table');
  });

  it('shows a DQ trend after two checks, with filters kept in the URL', async () => {
    for (let i = 0; i < 2; i++) {
      // Named table and branch: what the page's Re-check sends too.
      const run = await waitJob(await startJob('dq.run', { selfTest: true, tables: ['SELFTEST.CUSTOMERS'], branch: [branch] }));
      expect(run.error ?? '').toBe('');
    }
    await page.goto(`${stack.baseUrl}/data-quality`);
    await page.getByTestId('dq-table').locator('[data-status="OK"]').first().waitFor();
    await page.waitForFunction(() => Number(document.querySelector('[data-testid="dq-trend"]')?.getAttribute('data-points')) >= 2);
    await page.getByTestId('dq-trend').locator('.recharts-line-curve').first().waitFor({ state: 'attached' });
    expect(await page.getByRole('button', { name: 'Re-check' }).count()).toBeGreaterThan(0);
    await page.locator('select[name="status"]').selectOption('OK');
    await page.waitForURL(/status=OK/);
    await page.reload();
    await expect(page.locator('select[name="status"]').inputValue()).resolves.toBe('OK');
    await page.getByTestId('dq-table').waitFor();
    // a text filter reaches the URL when committed
    await page.locator('input[name="table"]').fill('customers');
    await page.locator('input[name="table"]').press('Enter');
    await page.waitForURL(/table=customers/);
    await page.getByTestId('dq-trend').waitFor();
    await shot('data-quality');
  });

  it('tables fit at 1,280 px: the DQ Repair and the Runs Retry buttons are within the window, not hidden by the table', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    try {
      // In the window, and the topmost element at its centre (not under another cell of a scrolled table).
      const reachable = async (button: import('playwright-core').Locator) => {
        // Scroll the window vertically only: scrollIntoView would also scroll the table sideways and hide what is tested.
        await button.evaluate((el) => window.scrollTo(0, el.getBoundingClientRect().top + window.scrollY - 200));
        const box = await button.boundingBox();
        expect(box).not.toBeNull();
        expect(box!.x).toBeGreaterThanOrEqual(0);
        expect(box!.x + box!.width).toBeLessThanOrEqual(1280);
        const onTop = await button.evaluate((el) => {
          const r = el.getBoundingClientRect();
          const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
          return !!hit && (hit === el || el.contains(hit));
        });
        expect(onTop).toBe(true);
      };
      await page.goto(`${stack.baseUrl}/data-quality`);
      const dq = page.getByTestId('dq-table');
      await dq.locator('[data-status]').first().waitFor();
      // Real rows are wider than the self-test's (window notes, long names, summaries): widen the first column as they would.
      const widen = (table: import('playwright-core').Locator) => table.locator('tbody tr').first().locator('td').first().evaluate((td) => { (td as HTMLElement).style.minWidth = '1400px'; });
      await widen(dq);
      const repairs = dq.getByRole('button', { name: 'Repair' });
      expect(await repairs.count()).toBeGreaterThan(0);
      await reachable(repairs.first());
      await page.goto(`${stack.baseUrl}/runs`);
      const retries = page.getByTestId('runs-table').getByRole('button', { name: 'Retry' });
      await retries.first().waitFor();
      await widen(page.getByTestId('runs-table'));
      await reachable(retries.first());
    } finally {
      await page.setViewportSize({ width: 1360, height: 900 });
    }
  });

  it('every page renders without an uncaught error (screenshots saved)', async () => {
    for (const [href, name] of [['/pipelines', 'pipelines'], ['/flows', 'flows'], ['/runs', 'runs'], ['/slices', 'slices'], ['/models', 'models'], ['/settings', 'settings'], ['/', 'overview-after']]) {
      await page.goto(`${stack.baseUrl}${href}`);
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      await page.waitForLoadState('networkidle').catch(() => {}); // polling pages never go idle for long: the heading is enough
      await shot(name);
    }
    for (const f of ['overview', 'connections', 'lake', 'lake-table', 'data-quality', 'runs', 'settings']) expect(fs.existsSync(path.join(SHOTS, `${f}.png`)), f).toBe(true);
    expect(pageErrors).toEqual([]);
  });
});
