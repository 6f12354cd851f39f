// Flows in Chromium against the real stack (`tributary serve`, its worker
// running the scheduler), with a real SMTP server in this process: save two
// pipelines from the run forms, build a two-node flow in the editor,
// schedule it a minute ahead in Europe/Berlin, watch it fire and finish with
// its nodes coloured, and receive its alert mail.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, startStack, type Stack } from './stack';
import { signIn } from './sign-in';
import { startTestSmtpServer, type TestSmtpServer } from '../lib/mail/test-smtp-server';
import { waitFor } from '../lib/testing/wait-for';

const ADMIN = { name: 'admin', password: 'admin-e2e-password' };
const SHOTS = path.join(os.tmpdir(), 'tributary-e2e-shots');
const ZONE = 'Europe/Berlin';
let stack: Stack;
let browser: Browser;
let page: Page;
let smtp: TestSmtpServer;
const pageErrors: string[] = [];

/** Wall-clock minute and hour of a UTC instant in a zone. */
function wallClock(d: Date, tz: string): { minute: number; hour: number } {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone: tz, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(d);
  return { hour: Number(parts.find((p) => p.type === 'hour')!.value), minute: Number(parts.find((p) => p.type === 'minute')!.value) };
}

beforeAll(async () => {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`e2e: ${CHROMIUM} is missing — apt-get install -y chromium`);
  smtp = await startTestSmtpServer();
  stack = await startStack({ admin: ADMIN });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  page = await browser.newPage();
  page.on('pageerror', (e) => pageErrors.push(`${page.url()}: ${e.message}`));
  page.setDefaultTimeout(30_000);
  fs.mkdirSync(SHOTS, { recursive: true });
  await signIn(page, stack.baseUrl, ADMIN);
}, 20 * 60_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  await smtp?.close();
});

describe('flows in the browser', () => {
  it('saves two pipelines from the run forms', async () => {
    await page.goto(`${stack.baseUrl}/pipelines`);
    await page.getByRole('button', { name: 'Run ETL' }).click();
    const etl = page.getByRole('form', { name: 'Run ETL' });
    await etl.locator('select[name="mode"]').selectOption('INITIAL');
    await etl.locator('input[name="selfTest"]').check();
    await etl.locator('input[name="keepStaging"]').check();
    await etl.getByRole('button', { name: 'Save as pipeline' }).click();
    await etl.getByLabel('Pipeline name').fill('load-selftest');
    await etl.getByRole('button', { name: 'Save pipeline' }).click();
    await etl.getByRole('status').getByText('load-selftest').waitFor();

    await page.goto(`${stack.baseUrl}/data-quality`);
    await page.getByRole('button', { name: 'Run check' }).click();
    const dq = page.getByRole('form', { name: 'Run check' });
    await dq.locator('input[name="selfTest"]').check();
    await dq.getByRole('button', { name: 'Save as pipeline' }).click();
    await dq.getByLabel('Pipeline name').fill('check-selftest');
    await dq.getByRole('button', { name: 'Save pipeline' }).click();
    await dq.getByRole('status').getByText('check-selftest').waitFor();

    await page.goto(`${stack.baseUrl}/pipelines`);
    const table = page.getByTestId('pipelines-table');
    await table.getByText('load-selftest').waitFor();
    await table.getByText('check-selftest').waitFor();
    await table.getByRole('row', { name: /load-selftest/ }).getByRole('button', { name: 'Details' }).click();
    await expect(page.getByTestId('pipeline-command').textContent()).resolves.toContain('tributary etl --mode INITIAL');
  });

  it('builds a two-node flow in the editor, scheduled a minute ahead in Europe/Berlin, that fires, finishes coloured and mails', async () => {
    await page.goto(`${stack.baseUrl}/connections`);
    const made = await page.evaluate((port) => fetch('/api/v1/connections', {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'alerts', kind: 'smtp', params: { host: '127.0.0.1', port, tls: 'none', from: 'tributary@e2e.test' } }),
    }).then((r) => r.status), smtp.port);
    expect(made).toBe(201);

    await page.goto(`${stack.baseUrl}/flows`);
    await page.getByRole('link', { name: 'New flow' }).click();
    await page.getByRole('heading', { level: 1, name: 'New flow' }).waitFor();
    const settings = page.getByRole('region', { name: 'Flow settings' });
    await settings.getByLabel('Name').fill('e2e-nightly');
    await page.getByLabel('Pipeline to add').selectOption('load-selftest');
    await page.getByRole('button', { name: 'Add pipeline node' }).click();
    await page.getByLabel('Pipeline to add').selectOption('check-selftest');
    await page.getByRole('button', { name: 'Add pipeline node' }).click();
    await page.getByLabel('Edge from').selectOption('load-selftest');
    await page.getByLabel('Edge to').selectOption('check-selftest');
    await page.getByRole('button', { name: 'Add edge' }).click();
    await page.getByRole('button', { name: 'Auto-layout' }).click();
    await page.getByText('2 nodes · 1 edges: load-selftest → check-selftest').waitFor();
    await page.getByTestId('flow-node-load-selftest').waitFor();
    await page.getByTestId('flow-node-check-selftest').waitFor();

    // A bad cron is explained before saving.
    await settings.getByLabel(/^Cron/).fill('61 * * * *');
    await page.getByTestId('schedule-problem').getByText(/minute/).waitFor();

    // The next whole minute at least 45 s away, as wall-clock time in Berlin.
    const fire = new Date(Math.ceil((Date.now() + 45_000) / 60_000) * 60_000);
    const { hour, minute } = wallClock(fire, ZONE);
    await settings.getByLabel(/^Cron/).fill(`${minute} ${hour} * * *`);
    await settings.getByLabel('Time zone (IANA)').fill(ZONE);
    const preview = page.getByTestId('schedule-preview');
    await preview.getByText(`${fire.toISOString().replace('T', ' ').slice(0, 16)} UTC`).waitFor();
    await settings.getByLabel('Recipients (comma-separated)').fill('ops@e2e.test');
    await settings.getByLabel('Mail on success').check();
    await page.screenshot({ path: path.join(SHOTS, 'flow-editor.png'), fullPage: true });
    await settings.getByRole('button', { name: 'Create flow' }).click();
    await page.waitForURL(/\/flows\/[0-9a-f-]{36}$/);
    const flowId = page.url().split('/').pop()!;

    // Wait for the scheduler to fire it (no "run now"), then open that run.
    const runs = page.getByTestId('flow-runs-table');
    await runs.getByText('schedule').waitFor({ timeout: 150_000 });
    await runs.getByRole('link', { name: 'Open' }).first().click();
    await page.waitForURL(new RegExp(`/flows/${flowId}/runs/[0-9a-f-]{36}$`));
    const status = page.getByTestId('flow-run-status');
    await page.waitForFunction(() => ['succeeded', 'failed', 'cancelled'].includes(document.querySelector('[data-testid="flow-run-status"]')?.textContent ?? ''), null, { timeout: 300_000 });
    const final = await status.textContent();
    if (final !== 'succeeded') {
      const log = await page.getByTestId('flow-run-log').textContent();
      throw new Error(`flow run ended ${final}: ${log}`);
    }
    expect(await page.getByText(/Scheduled for/).count()).toBe(1);
    for (const id of ['load-selftest', 'check-selftest']) {
      const node = page.getByTestId(`flow-node-${id}`);
      await expect(node.getAttribute('data-status')).resolves.toBe('succeeded');
      await expect(node.evaluate((el) => getComputedStyle(el).borderTopColor)).resolves.toBe('rgb(18, 128, 92)');
    }
    await page.screenshot({ path: path.join(SHOTS, 'flow-run.png'), fullPage: true });

    // The run's scheduled time is the chosen fire, in the flow's zone.
    const api = await page.evaluate((f) => fetch(`/api/v1/flows/${f}/runs`).then((r) => r.json()), flowId);
    const scheduled = api.runs.filter((r: { trigger: string }) => r.trigger === 'schedule');
    expect(scheduled).toHaveLength(1);
    expect(scheduled[0].scheduledFor).toBe(fire.toISOString());

    await waitFor('the success mail', () => smtp.messages.length > 0, 180_000, 500);
    expect(smtp.messages).toHaveLength(1);
    expect(smtp.messages[0]).toMatchObject({ to: ['ops@e2e.test'], subject: '[tributary] Flow e2e-nightly succeeded' });
    expect(smtp.messages[0].text).toContain(`${stack.baseUrl}/flows/${flowId}/runs/`);
    expect(pageErrors).toEqual([]);
  }, 10 * 60_000);
});
