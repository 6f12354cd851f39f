// Signing a browser page in through the login form, as a user does: every
// browser test starts from here.
import type { Page } from 'playwright-core';

/** Log `who` in on `page` and wait for the Overview the login lands on. */
export async function signIn(page: Page, baseUrl: string, who: { name: string; password: string }): Promise<void> {
  await page.goto(`${baseUrl}/login`);
  await page.getByLabel('User name').fill(who.name);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((u) => !u.pathname.startsWith('/login'));
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
}
