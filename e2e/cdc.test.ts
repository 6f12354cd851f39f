// The panel's CDC view in Chromium against the real stack: a branch set to `cdc: log` whose slot
// holds WAL on a real source (wal_level=logical) shows its state, its lag in bytes and in seconds
// and its retained WAL, refreshed by the page's poll; the Start action is offered to an admin.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import pg from 'pg';
import { stackDatabaseUrl, startStack, type Stack } from './stack';
import { openPage, requireChromium } from './browser';
import { signIn } from './sign-in';
import { startLogicalPostgres, type LogicalPostgres } from '../lib/testing/logical-pg';
import { recordSetup } from '../lib/cdc/state';

const ADMIN = { name: 'admin', password: 'admin-e2e-password' };
let stack: Stack; let browser: Browser; let page: Page; let source: LogicalPostgres;
let pageErrors: string[] = [];

beforeAll(async () => {
  requireChromium();
  source = await startLogicalPostgres();
  stack = await startStack({ admin: ADMIN });
  ({ browser, page, pageErrors } = await openPage());
}, 20 * 60_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  await source?.stop();
}, 120_000);

describe('CDC view', () => {
  it('shows a streamed branch with its state, lag in bytes and seconds, and retained WAL', async () => {
    await signIn(page, stack.baseUrl, ADMIN);
    const made = await page.evaluate((body) => fetch('/api/v1/connections', { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then((r) => r.status),
      JSON.stringify({ name: 'live', kind: 'postgres', isBranch: true, branchKey: 'live', params: { cdc: 'log' }, secrets: { url: source.url } }));
    expect(made).toBe(201);
    // the branch as `cdc setup` leaves it: a slot on the source, the control state in the stack's database
    const src = new pg.Client({ connectionString: source.url });
    await src.connect();
    const pool = new pg.Pool({ connectionString: stackDatabaseUrl(stack), max: 2 });
    try {
      const lsn = (await src.query(`SELECT lsn::text AS l FROM pg_create_logical_replication_slot('tributary_live', 'pgoutput')`)).rows[0].l;
      await recordSetup(pool, { branch: 'live', namespace: 'etl', slot: 'tributary_live', publication: 'tributary_live', startLsn: lsn, tables: [] });
      await src.query(`CREATE TABLE public.filler AS SELECT g, repeat('x', 200) AS pad FROM generate_series(1, 5000) g`);
    } finally { await src.end(); await pool.end(); }

    await page.goto(`${stack.baseUrl}/cdc`);
    await page.getByRole('heading', { name: 'CDC' }).waitFor();
    const row = page.locator('tr[data-branch="live"]');
    await expect.poll(() => row.getByTestId('cdc-state').textContent()).toBe('ready');
    // WAL written after the slot's position and not acknowledged: over a MiB behind
    await expect.poll(() => row.getByTestId('cdc-lag-bytes').textContent()).toMatch(/^[\d.]+ MiB$/);
    await expect.poll(() => row.getByTestId('cdc-lag-seconds').textContent()).toMatch(/^(\d+(\.\d)?s|\d+ ms|\d+m \d{2}s)$/); // since the setup's snapshot
    expect(await row.getByRole('button', { name: 'Start' }).isVisible()).toBe(true);
    expect(await page.getByRole('link', { name: 'CDC' }).getAttribute('aria-current')).toBe('page');
    expect(pageErrors).toEqual([]);
  });
});
