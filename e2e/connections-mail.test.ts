// "Send test mail" on the Connections page in Chromium against the real stack
// (`tributary serve`, its worker and embedded Postgres), with a real SMTP
// server (npm smtp-server) in this process: add an SMTP connection through
// the form, send a test mail from its row and receive it; then have the
// server refuse one and see its error under the row.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, startStack, type Stack } from './stack';
import { signIn } from './sign-in';
import { startTestSmtpServer, type TestSmtpServer } from '../lib/mail/test-smtp-server';

const ADMIN = { name: 'admin', password: 'admin-e2e-password' };
const SHOTS = path.join(os.tmpdir(), 'tributary-e2e-shots');
let stack: Stack;
let browser: Browser;
let page: Page;
let smtp: TestSmtpServer;
const pageErrors: string[] = [];

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
}, 120_000);

describe('Send test mail on an SMTP connection', () => {
  it('delivers a mail to the SMTP server from the connection row, and shows the server refusing one', async () => {
    await page.goto(`${stack.baseUrl}/connections`);
    await page.getByRole('button', { name: 'Add connection' }).click();
    const form = page.getByRole('form', { name: 'Add a connection' });
    await form.locator('select[name="kind"]').selectOption('smtp');
    await form.locator('input[name="name"]').fill('relay');
    await form.locator('input[name="params.host"]').fill('127.0.0.1');
    await form.locator('input[name="params.port"]').fill(String(smtp.port));
    await form.locator('select[name="params.tls"]').selectOption('none');
    await form.locator('input[name="params.from"]').fill('tributary@e2e.test');
    await form.getByRole('button', { name: 'Save connection' }).click();
    const row = page.locator('tr[data-connection="relay"]');
    await row.waitFor();

    await row.getByRole('button', { name: 'Send test mail' }).click();
    const mail = page.getByRole('form', { name: 'Send a test mail through relay' });
    expect(await mail.getByRole('button', { name: 'Send' }).isDisabled()).toBe(true); // no recipient yet
    await mail.getByLabel('Recipient').fill('ops@e2e.test');
    await mail.getByRole('button', { name: 'Send' }).click();
    const outcome = mail.getByTestId('test-mail-outcome');
    await outcome.locator('[data-status="sent"]').waitFor({ timeout: 90_000 });
    await expect(outcome.textContent()).resolves.toContain('ops@e2e.test');
    await page.screenshot({ path: path.join(SHOTS, 'connections-test-mail.png'), fullPage: true });

    expect(smtp.messages).toHaveLength(1);
    expect(smtp.messages[0]).toMatchObject({ from: 'tributary@e2e.test', to: ['ops@e2e.test'], subject: '[tributary] test mail' });
    expect(smtp.messages[0].text).toContain("sent through the connection 'relay'");
    // the message id the page shows is the one the server received
    const shownId = (await mail.getByTestId('test-mail-message-id').textContent())!.trim();
    expect(smtp.messages[0].raw).toContain(`Message-ID: ${shownId}`);

    // The relay refuses the next one: the job's error appears under the row, and nothing is delivered.
    smtp.refuse(1);
    await mail.getByLabel('Recipient').fill('oncall@e2e.test');
    await mail.getByRole('button', { name: 'Send' }).click();
    await outcome.locator('[data-status="failed"]').waitFor({ timeout: 90_000 });
    await expect(outcome.textContent()).resolves.toMatch(/451|try again later/);
    expect(smtp.refused()).toBe(1);
    expect(smtp.messages).toHaveLength(1);

    await mail.getByRole('button', { name: 'Close' }).click();
    await mail.waitFor({ state: 'detached' });
    expect(pageErrors).toEqual([]);
  }, 5 * 60_000);
});
