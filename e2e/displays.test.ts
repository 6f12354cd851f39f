// Displays agree with the data (issue 26, point 5), in Chromium against the
// real stack on a real PostgreSQL branch: after an INCREMENTAL merge that marks
// updated rows deleted through position deletes, the Lake list shows the live
// rows (not data rows + deleted ones) and the marked-deleted count apart, and
// the table page's latest snapshot counts the position deletes as Deleted;
// after a DQ repair, the DQ row reads OK with its pre-repair counts muted and
// noted, not in red beside the OK.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import pg from 'pg';
import { stackDatabaseUrl, startStack, type Stack } from './stack';
import { openPage, requireChromium } from './browser';
import { signIn } from './sign-in';
import { startJob, waitJob } from './jobs';

const ADMIN = { name: 'admin', password: 'admin-e2e-password' };
const ROWS = 40;
const UPDATED = 3;
let stack: Stack; let browser: Browser; let page: Page; let dir: string; let url = '';
let pageErrors: string[] = [];

const sql = async (text: string) => {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try { return await c.query(text); } finally { await c.end(); }
};
const run = async (kind: string, params: Record<string, unknown>) => {
  const r = await waitJob(page, await startJob(page, kind, params), 240_000);
  expect(r.error ?? '', `${kind} ${JSON.stringify(params)}`).toBe('');
  expect(r.status).toBe('succeeded');
};
const digits = (s: string | null) => Number((s ?? '').replace(/[^\d]/g, ''));

beforeAll(async () => {
  requireChromium();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trb-e2e-displays-'));
  const tablesFile = path.join(dir, 'tables.json');
  fs.writeFileSync(tablesFile, JSON.stringify([{ table: 'shop.items', unique_key: 'item_id', cdc_column: 'updated_at', category: 'masters' }], null, 2));
  stack = await startStack({ admin: ADMIN, env: { TRIBUTARY_TABLES_FILE: tablesFile } });
  // The branch: a schema in the stack's own embedded Postgres.
  url = stackDatabaseUrl(stack);
  await sql(`create schema shop;
    create table shop.items (item_id int primary key, name text not null, updated_at timestamptz not null default now() - interval '1 hour');
    insert into shop.items (item_id, name) select g, 'item ' || g from generate_series(1, ${ROWS}) g`);
  ({ browser, page, pageErrors } = await openPage());
}, 20 * 60_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
}, 120_000);

describe('displays agree with the data', () => {
  it('after a merge with deletes: the Lake list shows live rows and marked-deleted apart; the snapshot counts the position deletes', async () => {
    await signIn(page, stack.baseUrl, ADMIN);
    const made = await page.evaluate((body) => fetch('/api/v1/connections', { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then((r) => r.status),
      JSON.stringify({ name: 'b1', kind: 'postgres', isBranch: true, branchKey: 'b1', params: {}, secrets: { url } }));
    expect(made).toBe(201);
    await run('etl.run', { mode: 'INITIAL', branch: ['b1'] });
    // Changed rows: a merge replaces each, marking its old copy deleted by a position delete.
    await sql(`update shop.items set name = name || ' (changed)', updated_at = now() where item_id <= ${UPDATED}`);
    await run('etl.run', { mode: 'INCREMENTAL', branch: ['b1'] });

    await page.goto(`${stack.baseUrl}/lake`);
    const row = page.getByTestId('lake-tables').locator('tbody tr', { hasText: 'items' });
    await row.waitFor({ timeout: 60_000 });
    await expect.poll(async () => digits(await row.getByTestId('lake-live-rows').textContent()), { timeout: 30_000 }).toBe(ROWS);
    const cells = row.locator('td');
    expect(digits(await cells.nth(3).textContent()), 'Marked deleted').toBe(UPDATED);

    await row.getByRole('link').first().click();
    const latest = page.getByTestId('lake-snapshots').locator('tbody tr').first();
    await latest.waitFor({ timeout: 60_000 });
    const snap = latest.locator('td');
    expect(await snap.nth(3).textContent(), 'latest snapshot is the merge').not.toBe('append');
    expect(digits(await snap.nth(4).textContent()), 'Added').toBe(UPDATED);
    expect(digits(await snap.nth(5).textContent()), 'Deleted').toBe(UPDATED);
    expect(digits(await snap.nth(6).textContent()), 'Rows').toBe(ROWS);
    expect(pageErrors).toEqual([]);
  });

  it('after a repair: the DQ row reads OK with its pre-repair counts muted and noted', async () => {
    // A quiet change: the watermark column is untouched, so no incremental load sees it.
    await sql(`update shop.items set name = 'quietly changed' where item_id = ${ROWS}`);
    // A check that finds a mismatch ends the run failed, naming the unit.
    const check = await waitJob(page, await startJob(page, 'dq.run', { branch: ['b1'] }), 240_000);
    expect(check.status).toBe('failed');
    expect(check.error ?? '').toMatch(/items@b1 MISMATCH/);
    await page.goto(`${stack.baseUrl}/data-quality`);
    const row = page.getByTestId('dq-table').locator('tbody tr', { hasText: 'items' }).first();
    await row.waitFor({ timeout: 60_000 });
    await expect.poll(() => row.locator('[data-status]').first().getAttribute('data-status'), { timeout: 30_000 }).toBe('MISMATCH');
    expect(await row.getByTestId('dq-repaired-note').count()).toBe(0);
    // Before a repair the mismatch reads in red.
    expect(await row.locator('td').nth(10).getAttribute('class')).toMatch(/error-text/);

    await run('dq.run', { branch: ['b1'], repair: true });
    await page.reload();
    const after = page.getByTestId('dq-table').locator('tbody tr', { hasText: 'items' }).first();
    await after.waitFor({ timeout: 60_000 });
    await expect.poll(() => after.locator('[data-status]').first().getAttribute('data-status'), { timeout: 30_000 }).toBe('OK');
    await after.getByTestId('dq-repaired-note').waitFor();
    // The counts the check found before the repair: muted, none in red beside the OK.
    expect(await after.locator('td.error-text').count()).toBe(0);
    expect(digits(await after.locator('td').nth(10).textContent()), 'Mismatch before repair').toBe(1);
    expect(await after.locator('td').nth(10).getAttribute('class')).toMatch(/muted/);
    // And the lake now holds the source's row.
    const rows = await page.evaluate(() => fetch('/api/v1/lake/tables').then((r) => r.json())) as { tables: { name: string; liveRecords: number | null }[] };
    expect(rows.tables.find((t) => t.name === 'items')?.liveRecords).toBe(ROWS);
    expect(pageErrors).toEqual([]);
  });
});
