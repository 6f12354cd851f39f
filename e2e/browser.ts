// The browser every panel test drives: headless Chromium with one page, and the
// errors the panel's scripts throw on it (a test expects none).
import fs from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from './stack';

/** Fail the test file at once, naming the fix, when Chromium is not installed (before a stack starts for nothing). */
export function requireChromium(): void {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`e2e: ${CHROMIUM} is missing — apt-get install -y chromium`);
}

/** Launch Chromium with one page (actions wait up to 30 s), collecting the page's uncaught errors in `pageErrors`. */
export async function openPage(): Promise<{ browser: Browser; page: Page; pageErrors: string[] }> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const page = await (await browser.newContext()).newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.setDefaultTimeout(30_000);
  return { browser, page, pageErrors };
}
