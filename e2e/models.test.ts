// The Models page in Chromium against the real stack (`tributary serve` with
// its worker): on a lake loaded through the CLI, edit the starter model in the
// browser's code editor, save it, build it (live log, results), see its rows
// in the query box and its test results — including a failing test's rows.
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, ROOT, startStack, type Stack } from './stack';
import { signIn } from './sign-in';

const ADMIN = { name: 'admin', password: 'admin-e2e-password' };
// The data folder may lie anywhere (the embedded ClickHouse runs in the warehouse folder,
// lib/models/chdb-host.ts); this one sits in the repository, beside the other e2e stacks.
const DATA = path.join(ROOT, `.data-test-models-${crypto.randomBytes(4).toString('hex')}`);

let stack: Stack; let browser: Browser; let page: Page;
const pageErrors: string[] = [];

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'bin/tributary.mjs'), ...args], {
    cwd: ROOT, encoding: 'utf8', env: { ...process.env, TRIBUTARY_DATA_DIR: DATA, DATABASE_URL: '', LOG_LEVEL: 'error' },
  });
  if (r.status !== 0) throw new Error(`tributary ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}

beforeAll(async () => {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`e2e: ${CHROMIUM} is missing — apt-get install -y chromium`);
  fs.mkdirSync(DATA, { recursive: true });
  stack = await startStack({ admin: ADMIN, dataDir: DATA });
  const csv = path.join(DATA, 'orders.csv');
  fs.writeFileSync(csv, 'id,customer,amount,status\n1,10,5,paid\n2,10,7.5,paid\n3,11,3,open\n4,12,10,paid\n');
  cli('lake', 'import', 'shop.orders', csv, '--mode', 'append');
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const ctx = await browser.newContext();
  page = await ctx.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.setDefaultTimeout(30_000);
  await signIn(page, stack.baseUrl, ADMIN);
}, 20 * 60_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  fs.rmSync(DATA, { recursive: true, force: true });
}, 120_000);

/** Replace the code editor's whole text (CodeMirror: select all, then insert). */
async function setEditor(text: string) {
  const content = page.getByTestId('model-editor').locator('.cm-content');
  await content.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

describe('Models page', () => {
  it('shows the starter project over the lake table, with its DAG', async () => {
    await page.goto(`${stack.baseUrl}/models`);
    await page.getByRole('heading', { name: 'Models' }).waitFor();
    await page.getByTestId('tree-models/staging/stg_orders.sql').waitFor();
    await page.getByTestId('dag-node-stg_orders').waitFor();
    await expect.poll(() => page.getByTestId('editor-path').textContent()).toBe('models/staging/stg_orders.sql');
  });

  it('edits the model in the browser, previews its compiled SQL, saves it', async () => {
    await page.getByTestId('model-editor').locator('.cm-content').waitFor();
    await setEditor("{{ config(materialized='table', order_by='id') }}\nSELECT id, customer, amount * 2 AS doubled, status\nFROM {{ source('lake', 'shop.orders') }}\n");
    await page.getByRole('button', { name: 'Compile' }).click();
    const compiled = page.getByTestId('compiled');
    await compiled.waitFor();
    expect(await compiled.textContent()).toContain(`FROM icebergLocal('${DATA}/warehouse/shop/orders')`);
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByTestId('save-note').textContent()).toBe('Saved.');
    expect(fs.readFileSync(path.join(DATA, 'models/models/staging/stg_orders.sql'), 'utf8')).toContain('amount * 2 AS doubled');
  });

  it('adds a failing test in schema.yml, builds: live log, model built, test results with failing rows', async () => {
    await page.getByTestId('tree-models/staging/schema.yml').click();
    await expect.poll(() => page.getByTestId('editor-path').textContent()).toBe('models/staging/schema.yml');
    await page.getByTestId('model-editor').locator('.cm-content').waitFor();
    await setEditor('version: 2\nmodels:\n  - name: stg_orders\n    columns:\n      - name: id\n        tests: [not_null, unique]\n      - name: customer\n        tests: [unique]\n');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByTestId('save-note').textContent()).toBe('Saved.');
    await page.getByTestId('dag-node-stg_orders').click();
    await expect.poll(() => page.getByTestId('editor-path').textContent()).toBe('models/staging/stg_orders.sql');
    await page.getByRole('button', { name: 'Build' }).click();
    const results = page.getByTestId('run-results');
    await results.getByTestId('result-stg_orders').waitFor({ timeout: 120_000 });
    await expect.poll(() => results.getByTestId('result-unique_stg_orders_customer').getAttribute('data-status'), { timeout: 120_000 }).toBe('fail');
    expect(await results.getByTestId('result-stg_orders').getAttribute('data-status')).toBe('success');
    expect(await results.getByTestId('result-stg_orders').textContent()).toContain('4');
    expect(await results.getByTestId('result-not_null_stg_orders_id').getAttribute('data-status')).toBe('pass');
    expect(await results.getByTestId('result-unique_stg_orders_id').getAttribute('data-status')).toBe('pass');
    expect(await results.getByTestId('failing-unique_stg_orders_customer').textContent()).toContain('{"unique_field":10,"n_records":2}');
    await expect.poll(() => page.getByTestId('models-log').textContent()).toMatch(/model stg_orders SUCCESS \(4 rows\)/);
    await expect.poll(() => page.getByTestId('dag-node-stg_orders').getAttribute('data-status')).toBe('success');
  });

  it('keeps typed work: New takes the suggested path, asks before dropping unsaved text, and a refused create changes no file', async () => {
    const stg = path.join(DATA, 'models/models/staging/stg_orders.sql');
    const before = fs.readFileSync(stg, 'utf8');
    await page.getByTestId('tree-models/staging/stg_orders.sql').click();
    await expect.poll(() => page.getByTestId('editor-path').textContent()).toBe('models/staging/stg_orders.sql');
    await page.getByTestId('model-editor').locator('.cm-content').waitFor();
    await setEditor('-- a draft that must not be written anywhere\nSELECT 1\n');
    await expect.poll(() => page.getByTestId('editor-path').textContent()).toBe('models/staging/stg_orders.sql •');
    // The placeholder's own suggestion is accepted (it lands under models/); the unsaved draft is asked about first.
    const asked: string[] = [];
    page.once('dialog', (d) => { asked.push(d.message()); void d.accept(); });
    await page.getByLabel('New file path').fill('marts/new_model.sql');
    await page.getByRole('button', { name: 'New', exact: true }).click();
    await expect.poll(() => page.getByTestId('editor-path').textContent()).toBe('models/marts/new_model.sql');
    expect(asked[0]).toMatch(/stg_orders\.sql has unsaved changes/);
    expect(fs.existsSync(path.join(DATA, 'models/models/marts/new_model.sql'))).toBe(true);
    expect(fs.readFileSync(stg, 'utf8')).toBe(before);
    // A refused create keeps the typed path, the open file and its text; Save then writes that file only.
    await page.getByTestId('model-editor').locator('.cm-content').waitFor();
    await setEditor("SELECT 42 AS answer\n");
    await page.getByLabel('New file path').fill('models/staging/stg_orders.sql');
    await page.getByRole('button', { name: 'New', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'already exists' }).waitFor();
    expect(await page.getByLabel('New file path').inputValue()).toBe('models/staging/stg_orders.sql');
    expect(await page.getByTestId('editor-path').textContent()).toBe('models/marts/new_model.sql •');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByTestId('save-note').textContent()).toMatch(/^Saved/);
    expect(fs.readFileSync(path.join(DATA, 'models/models/marts/new_model.sql'), 'utf8')).toBe('SELECT 42 AS answer\n');
    expect(fs.readFileSync(stg, 'utf8')).toBe(before);
    // Put the project back as the next test expects it (the new model reads nothing, so the build is unchanged).
    fs.rmSync(path.join(DATA, 'models/models/marts'), { recursive: true, force: true });
    await page.getByTestId('tree-models/staging/stg_orders.sql').click().catch(() => {});
  });

  it('shows the built rows in the query box', async () => {
    const box = page.getByTestId('query-box');
    await box.getByLabel('SQL query').fill('SELECT id, doubled FROM models.stg_orders ORDER BY id');
    await box.getByRole('button', { name: 'Run query' }).click();
    const table = box.getByTestId('query-result');
    await table.waitFor({ timeout: 180_000 });
    const cells = await table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    expect(cells).toEqual([['1', '10'], ['2', '15'], ['3', '6'], ['4', '20']]);
    await box.getByLabel('SQL query').fill('DROP TABLE models.stg_orders');
    await box.getByRole('button', { name: 'Run query' }).click();
    await expect.poll(() => box.getByRole('alert').textContent()).toMatch(/refused by the SQL allow-list: Drop statements \(only one SELECT/);
    expect(pageErrors).toEqual([]);
  });
});
