// The Runs page in Chromium against the real stack: an ETL self-test started
// from its generated form (no JSON written), validation as you type and the
// server's message beside its field, the run's summary line, Retry, a
// confirmed cancel of a long system.check, and filters kept in the URL.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, startStack, type Stack } from './stack';
import { signIn } from './sign-in';

const ADMIN = { name: 'admin', password: 'admin-e2e-password' };
const SHOTS = path.join(os.tmpdir(), 'tributary-e2e-shots');
let stack: Stack;
let browser: Browser;
let page: Page;

const row = (id: string) => page.locator(`tr[data-run-id="${id}"]`);
async function flashId(): Promise<string> {
  const href = await page.getByRole('status').getByRole('link', { name: 'Open its log' }).getAttribute('href');
  return href!.split('/').pop()!;
}

beforeAll(async () => {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`e2e: ${CHROMIUM} is missing — apt-get install -y chromium`);
  stack = await startStack({ admin: ADMIN });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  fs.mkdirSync(SHOTS, { recursive: true });
  page = await (await browser.newContext()).newPage();
  page.setDefaultTimeout(20_000);
  await signIn(page, stack.baseUrl, ADMIN);
}, 20 * 60_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
}, 120_000);

describe('Runs page', () => {
  let etlId = '';

  it('starts an ETL self-test from its generated form and shows its summary', async () => {
    await page.goto(`${stack.baseUrl}/runs`);
    await page.getByRole('button', { name: 'Start job' }).click();
    const form = page.getByRole('form', { name: 'Start a job' });
    await form.locator('option[value="etl.run"]').waitFor({ state: 'attached' });
    await form.locator('select[name="kind"]').selectOption('etl.run');
    // Enums are selects, booleans checkboxes, bounds checked as you type.
    await form.locator('select[name="mode"]').selectOption('INITIAL');
    await form.locator('input[name="selfTest"]').check();
    await form.locator('input[name="maxTableWorkers"]').fill('99');
    await expect(form.locator('[data-field-error="maxTableWorkers"]').textContent()).resolves.toBe('expected an integer ≥ 1 and ≤ 64');
    await form.locator('input[name="maxTableWorkers"]').fill('2');
    await form.locator('[data-field-error="maxTableWorkers"]').waitFor({ state: 'detached' });
    // The server's 400 is shown beside the field it names.
    await form.locator('input[name="tables"]').fill('no_such_table');
    await form.getByRole('button', { name: 'Start', exact: true }).click();
    await expect(form.locator('[data-field-error="tables"]').textContent()).resolves.toContain('unknown table');
    await form.locator('input[name="tables"]').fill('');
    await page.screenshot({ path: path.join(SHOTS, 'runs-start-etl-form.png'), fullPage: true });
    await form.getByRole('button', { name: 'Start', exact: true }).click();
    etlId = await flashId();
    await row(etlId).locator('[data-status="succeeded"]').waitFor({ timeout: 180_000 });
    const summary = await row(etlId).getByTestId('run-summary').textContent();
    expect(summary).toMatch(/^INITIAL · self-test · branches all · tables all · [\d,]+ rows · units \d+ ok \/ 0 failed/);
  }, 240_000);

  it('retries it with the same parameters', async () => {
    await row(etlId).getByRole('button', { name: 'Retry' }).click();
    // The flash changes from "Job started" to the retry's.
    await page.getByRole('status').getByText('Retry of etl.run queued').waitFor();
    const again = await flashId();
    expect(again).not.toBe(etlId);
    await row(again).locator('[data-status="succeeded"]').waitFor({ timeout: 180_000 });
    await page.goto(`${stack.baseUrl}/runs/${again}`);
    const params = await page.locator('pre.code').first().textContent();
    expect(JSON.parse(params!)).toMatchObject({ mode: 'INITIAL', selfTest: true, maxTableWorkers: 2 });
    // Debug lines are hidden until asked for.
    await page.getByLabel('Show debug lines').waitFor();
  }, 240_000);

  it('cancels a long system.check only after confirming', async () => {
    await page.goto(`${stack.baseUrl}/runs`);
    await page.getByRole('button', { name: 'Start job' }).click();
    const form = page.getByRole('form', { name: 'Start a job' });
    await form.locator('option[value="system.check"]').waitFor({ state: 'attached' });
    await form.locator('select[name="kind"]').selectOption('system.check');
    await form.locator('input[name="holdSeconds"]').fill('300');
    await form.getByRole('button', { name: 'Start', exact: true }).click();
    const id = await flashId();
    await row(id).locator('[data-status="running"]').waitFor({ timeout: 60_000 });
    await row(id).getByRole('button', { name: 'Cancel' }).click();
    // Asked, declined: still running.
    await row(id).getByRole('button', { name: 'No' }).click();
    await row(id).locator('[data-status="running"]').waitFor();
    await row(id).getByRole('button', { name: 'Cancel' }).click();
    await row(id).getByRole('button', { name: 'Yes, cancel' }).click();
    await row(id).locator('[data-status="cancelled"]').waitFor({ timeout: 60_000 });
  }, 120_000);

  it('keeps filters in the URL', async () => {
    await page.getByLabel('Filter by status').selectOption('cancelled');
    await page.waitForURL(/[?&]status=cancelled/);
    await page.reload();
    await expect(page.getByLabel('Filter by status').inputValue()).resolves.toBe('cancelled');
    await page.locator('tr[data-run-id] [data-status="cancelled"]').first().waitFor();
    expect(await page.locator('tr[data-run-id] [data-status="succeeded"]').count()).toBe(0);
    await page.screenshot({ path: path.join(SHOTS, 'runs-filtered.png'), fullPage: true });
  });
});
