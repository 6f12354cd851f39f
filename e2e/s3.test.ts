// The panel on an s3:// warehouse: the real stack (`tributary serve`, its worker, embedded Postgres)
// configured as a user does it — TRIBUTARY_WAREHOUSE=s3://… plus AWS_* / TRIBUTARY_S3_* — against a
// real S3 API server (s3rver, lib/lake/test-s3.ts). An ETL self-test posted with the panel's session
// loads the lake; the Lake page in Chromium lists the tables under the s3:// warehouse, and a table's
// page shows its s3:// location, a row preview with rows and a snapshot timeline with a snapshot.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startS3, type TestS3 } from '../lib/lake/test-s3';
import { startJob as postJob, waitJob as pollJob } from './jobs';
import { CHROMIUM, CHROMIUM_ARGS, ROOT, startStack, type Stack } from './stack';
import { signIn } from './sign-in';

const ADMIN = { name: 'admin', password: 'admin-e2e-s3-password' };
const SHOTS = path.join(ROOT, 'test-results', 'screenshots');
let s3: TestS3;
let warehouse: string;
let stack: Stack;
let browser: Browser;
let ctx: BrowserContext;
let page: Page;
const pageErrors: string[] = [];
/** The table the first test opened (the second compacts it). */
let ident = '';

/** Same-origin fetch with the page's session cookie. */
const apiGet = (u: string) => page.evaluate((x) => fetch(x).then((r) => r.json()), u);
const startJob = (kind: string, params: Record<string, unknown>) => postJob(page, kind, params);
const waitJob = (id: string) => pollJob(page, id, 300_000);

beforeAll(async () => {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`e2e: ${CHROMIUM} is missing — apt-get install -y chromium`);
  s3 = await startS3();
  warehouse = s3.warehouse();
  stack = await startStack({
    admin: ADMIN,
    env: {
      TRIBUTARY_WAREHOUSE: warehouse, AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_REGION: 'us-east-1',
      TRIBUTARY_S3_ENDPOINT: s3.endpoint, TRIBUTARY_S3_FORCE_PATH_STYLE: 'true',
    },
  });
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
  await s3?.stop();
}, 120_000);

describe('the panel on an s3:// warehouse', () => {
  it('an ETL self-test loads the bucket; the Lake page lists its tables, previews rows and shows the snapshot timeline', async () => {
    const before = await s3.requests();
    // keepStaging: the DQ self-test of the second test reads the kept staging as its source
    const etl = await waitJob(await startJob('etl.run', { mode: 'INITIAL', selfTest: true, keepStaging: true }));
    expect(etl.error ?? '').toBe('');
    expect(etl.status).toBe('succeeded');
    // the load went to the object store, not to a warehouse folder under the data folder
    const afterLoad = await s3.requests();
    expect((afterLoad.PUT ?? 0) - (before.PUT ?? 0)).toBeGreaterThan(0);
    expect(fs.existsSync(path.join(stack.dataDir, 'warehouse'))).toBe(false);

    // every table the API lists lives under the s3:// warehouse and opened without error
    const list = await apiGet('/api/v1/lake/tables') as { warehouse: string; tables: { ident: string; location: string | null; error?: string; snapshotCount: number }[] };
    expect(list.warehouse).toBe(warehouse);
    expect(list.tables.length).toBeGreaterThan(0);
    for (const t of list.tables) {
      expect(t.error ?? null, t.ident).toBeNull();
      expect(t.location?.startsWith(`${warehouse}/`), `${t.ident} at ${t.location}`).toBe(true);
      expect(t.snapshotCount, t.ident).toBeGreaterThan(0);
    }

    await page.goto(`${stack.baseUrl}/lake`);
    await page.getByTestId('lake-tables').waitFor();
    await expect(page.locator('.page-sub code').first().textContent()).resolves.toBe(warehouse);
    const links = page.getByTestId('lake-tables').getByRole('link');
    expect((await links.allTextContents()).sort()).toEqual(list.tables.map((t) => t.ident).sort());
    expect(await page.getByTestId('lake-tables').locator('.cell-error').count()).toBe(0);
    await page.screenshot({ path: path.join(SHOTS, 'lake-s3.png'), fullPage: true });

    const first = links.first();
    ident = (await first.textContent())!;
    await first.click();
    await page.getByRole('heading', { level: 1, name: ident }).waitFor();
    const location = (await page.locator('.page-sub code').textContent())!;
    expect(location).toBe(list.tables.find((t) => t.ident === ident)!.location);
    expect(location.startsWith(`${warehouse}/`)).toBe(true);

    // the row preview reads the table's parquet from the bucket
    const rows = page.getByTestId('lake-rows');
    await rows.waitFor();
    await rows.locator('tbody tr').first().waitFor();
    expect(await rows.locator('tbody tr').count()).toBeGreaterThan(0);
    expect((await rows.locator('thead th').allTextContents()).length).toBeGreaterThan(0);
    expect((await s3.requests())['GET range'] ?? 0).toBeGreaterThan(afterLoad['GET range'] ?? 0);

    // the snapshot timeline and the snapshot list show the load's snapshot
    await page.getByTestId('snapshot-chart').locator('svg').first().waitFor();
    expect(await page.getByTestId('lake-snapshots').locator('tbody tr').count()).toBeGreaterThan(0);
    await page.screenshot({ path: path.join(SHOTS, 'lake-table-s3.png'), fullPage: true });
    expect(pageErrors).toEqual([]);
  });

  it('Compact from the Lake page succeeds on the bucket; a DQ self-test on the s3 lake reports OK', async () => {
    expect(ident).not.toBe('');
    await page.goto(`${stack.baseUrl}/lake/${encodeURIComponent(ident)}`);
    await page.getByRole('heading', { level: 1, name: ident }).waitFor();
    page.once('dialog', (d) => void d.accept());
    await page.getByTestId('lake-actions').getByRole('button', { name: 'Compact' }).click();
    await page.locator('[data-testid="lake-action-status"][data-status="succeeded"]').waitFor({ timeout: 180_000 });
    // (a freshly loaded table may have nothing to fold: the job succeeding on s3 is the point)
    const t = await apiGet(`/api/v1/lake/tables/${encodeURIComponent(ident)}`) as { location: string; snapshots: unknown[] };
    expect(t.location.startsWith(`${warehouse}/`)).toBe(true);
    expect(t.snapshots.length).toBeGreaterThan(0);
    await page.reload();
    await page.getByTestId('lake-rows').locator('tbody tr').first().waitFor();

    // a branch of the self-test, read from the lake through the rows API (what the page's Re-check names too)
    const sample = await apiGet('/api/v1/lake/tables/selftest.customers/rows?limit=1') as { rows: Record<string, unknown>[] };
    const branch = String(sample.rows[0]?.BRANCH_ID ?? '');
    expect(branch).not.toBe('');
    const dq = await waitJob(await startJob('dq.run', { selfTest: true, tables: ['SELFTEST.CUSTOMERS'], branch: [branch] }));
    expect(dq.error ?? '').toBe('');
    expect(dq.status).toBe('succeeded');
    await page.goto(`${stack.baseUrl}/data-quality`);
    await page.getByTestId('dq-table').locator('[data-status="OK"]').first().waitFor();
    expect(pageErrors).toEqual([]);
  });
});
