// Issue #13 against the real stack (`tributary serve`, `next start` in
// production mode, embedded Postgres) over real HTTP and in Chromium: security
// headers on pages and API routes, a CSP the production pages run under,
// throttled sign-in through next-auth's callback (429 + Retry-After, the
// right password refused until the window passes, the form saying so),
// sessions ended by sign-out and by a password change, Origin: null refused,
// the audit page, and the data folder's permissions.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, startStack, type Stack } from './stack';

const ADMIN = { name: 'admin', password: 'admin-e2e-password' };
// Short enough to wait out in a test, long enough that the failures of one test fall in one window.
const WINDOW_S = 30;
let stack: Stack;
let browser: Browser;

const cookiesOf = (res: Response) => res.headers.getSetCookie().map((c) => c.split(';')[0]);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** next-auth's credentials sign-in as its client does it: CSRF token first, then the callback with json=true. */
async function signIn(name: string, password: string): Promise<{ status: number; retryAfter: string | null; body: any; cookie: string }> {
  const c = await fetch(`${stack.baseUrl}/api/auth/csrf`);
  const { csrfToken } = await c.json();
  const jar = cookiesOf(c);
  const res = await fetch(`${stack.baseUrl}/api/auth/callback/credentials`, {
    method: 'POST', redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: jar.join('; '), origin: stack.baseUrl },
    body: new URLSearchParams({ csrfToken, username: name, password, json: 'true', callbackUrl: `${stack.baseUrl}/` }),
  });
  const session = cookiesOf(res).filter((x) => x.startsWith('next-auth.session-token='));
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json().catch(() => null), cookie: [...jar, ...session].join('; ') };
}

async function api(method: string, url: string, o: { cookie?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const res = await fetch(stack.baseUrl + url, {
    method,
    headers: { ...(o.cookie ? { cookie: o.cookie } : {}), ...(o.body !== undefined ? { 'content-type': 'application/json' } : {}), ...o.headers },
    body: o.body === undefined ? undefined : JSON.stringify(o.body),
  });
  const text = await res.text();
  return { status: res.status, text, body: text ? JSON.parse(text) : null };
}
const mutate = (method: string, url: string, cookie: string, body: unknown = {}) =>
  api(method, url, { cookie, body, headers: { origin: stack.baseUrl } });

let adminCookie = '';

beforeAll(async () => {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`e2e: ${CHROMIUM} is missing — apt-get install -y chromium`);
  stack = await startStack({ admin: ADMIN, env: { TRIBUTARY_LOGIN_WINDOW_SECONDS: String(WINDOW_S), TRIBUTARY_LOGIN_MAX_FAILURES_PER_ADDRESS: '1000' } });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const s = await signIn(ADMIN.name, ADMIN.password);
  expect(s.status).toBe(200);
  adminCookie = s.cookie;
  for (const [name, role] of [['mallory', 'operator'], ['carol', 'viewer'], ['pat', 'operator']]) {
    expect((await mutate('POST', '/api/v1/users', adminCookie, { name, password: `${name}-password-1`, role })).status).toBe(201);
  }
}, 20 * 60_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe('headers', () => {
  it('are sent on pages and API routes, with a CSP that has no unsafe-eval and forbids framing', async () => {
    for (const url of ['/login', '/setup', '/api/v1/health', '/api/v1/jobs', '/api/auth/csrf']) {
      const res = await fetch(stack.baseUrl + url, { redirect: 'manual' });
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp, url).toContain("frame-ancestors 'none'");
      expect(csp, url).toContain("default-src 'self'");
      expect(csp, url).not.toContain('unsafe-eval');
      expect(res.headers.get('x-frame-options'), url).toBe('DENY');
      expect(res.headers.get('x-content-type-options'), url).toBe('nosniff');
      expect(res.headers.get('referrer-policy'), url).toBe('same-origin');
      expect(res.headers.get('strict-transport-security'), url).toBeNull();
    }
    const tls = await fetch(`${stack.baseUrl}/login`, { headers: { 'x-forwarded-proto': 'https' } });
    expect(tls.headers.get('strict-transport-security')).toMatch(/max-age=\d+/);
  });

  it('the production pages run under that CSP (no violation in Chromium)', async () => {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    const violations: string[] = [];
    page.on('console', (m) => { if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text()); });
    page.on('pageerror', (e) => violations.push(e.message));
    await page.goto(`${stack.baseUrl}/login`);
    await page.getByLabel('User name').fill(ADMIN.name);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${stack.baseUrl}/`);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.goto(`${stack.baseUrl}/runs`);
    await page.getByRole('heading', { name: 'Runs' }).waitFor();
    await page.goto(`${stack.baseUrl}/settings`);
    await page.getByRole('heading', { name: 'Settings' }).waitFor();
    // A framed login page is refused by the browser itself.
    const framed = await ctx.newPage();
    await framed.setContent(`<iframe id="f" src="${stack.baseUrl}/login" onload="window.framedLoaded = true"></iframe>`);
    // The frame has finished loading (Chromium loads its error page in place of a refused frame): what it shows now is final.
    await framed.waitForFunction(() => (window as unknown as { framedLoaded?: boolean }).framedLoaded === true, undefined, { timeout: 30_000 });
    const child = framed.frames()[1];
    expect(child).toBeTruthy();
    expect(child.url()).not.toBe(`${stack.baseUrl}/login`);
    expect(await child.$('input[name=username]')).toBeNull();
    expect(violations).toEqual([]);
    await ctx.close();
  });
});

describe('sign-in throttling through next-auth', () => {
  it('forty wrong passwords → 429 with Retry-After; the right one is refused until the window passes', async () => {
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof signIn>> | null = null;
    for (let i = 0; i < 40; i++) {
      last = await signIn('mallory', `wrong-password-${i}`);
      statuses.push(last.status);
    }
    expect(statuses.slice(0, 4)).toEqual([401, 401, 401, 401]);
    expect(statuses.slice(4).every((s) => s === 429)).toBe(true);
    expect(Number(last!.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(last!.body.error.code).toBe('rate_limited');
    const right = await signIn('mallory', 'mallory-password-1');
    expect(right.status).toBe(429);
    expect(right.cookie).not.toContain('next-auth.session-token');
    await sleep((Number(right.retryAfter) + 0.5) * 1000);
    const after = await signIn('mallory', 'mallory-password-1');
    expect(after.status).toBe(200);
    expect((await api('GET', '/api/v1/me', { cookie: after.cookie })).body).toMatchObject({ name: 'mallory' });
    // Failures and the lockout are in the audit log, with the address.
    const audit = await api('GET', '/api/v1/audit?target=user:mallory&limit=1000', { cookie: adminCookie });
    const actions = audit.body.events.map((e: { action: string }) => e.action);
    expect(actions.filter((a: string) => a === 'login.failure')).toHaveLength(5);
    expect(actions).toContain('login.lockout');
    expect(audit.body.events.find((e: { action: string }) => e.action === 'login.lockout').address).toBeTruthy();
    // The server log has them too.
    expect(stack.output()).toMatch(/login failed.*mallory/);
  });

  it('the login form says why when the account is locked', async () => {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await page.goto(`${stack.baseUrl}/login`);
    await page.getByLabel('User name').fill('carol');
    await page.getByLabel('Password').fill('nope-password');
    // Four failures at HTTP speed (a browser round is slower than the test's short window), the fifth in the form.
    for (let i = 0; i < 4; i++) expect((await signIn('carol', `nope-${i}-password`)).status).toBe(401);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText(/Too many failed sign-ins\. Try again in \d+ seconds\./).waitFor();
    await ctx.close();
  });
});

describe('sessions', () => {
  it('a session ends at sign-out: the old cookie no longer works', async () => {
    const s = await signIn('pat', 'pat-password-1');
    expect((await api('GET', '/api/v1/me', { cookie: s.cookie })).status).toBe(200);
    const { csrfToken } = await (await fetch(`${stack.baseUrl}/api/auth/csrf`, { headers: { cookie: s.cookie } })).json();
    const out = await fetch(`${stack.baseUrl}/api/auth/signout`, {
      method: 'POST', redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: s.cookie, origin: stack.baseUrl },
      body: new URLSearchParams({ csrfToken, json: 'true' }),
    });
    expect(out.status).toBeLessThan(400);
    // The cookie an attacker copied before the sign-out is refused.
    expect((await api('GET', '/api/v1/me', { cookie: s.cookie })).status).toBe(401);
    expect(await (await fetch(`${stack.baseUrl}/api/auth/session`, { headers: { cookie: s.cookie } })).json()).not.toMatchObject({ user: { name: 'pat' } });
  });

  it('a session ends when the password changes', async () => {
    const s = await signIn('pat', 'pat-password-1');
    expect((await api('GET', '/api/v1/me', { cookie: s.cookie })).status).toBe(200);
    const users = await api('GET', '/api/v1/users', { cookie: adminCookie });
    const pat = users.body.users.find((u: { name: string }) => u.name === 'pat');
    expect((await mutate('PATCH', `/api/v1/users/${pat.id}`, adminCookie, { password: 'pat-password-2' })).status).toBe(200);
    expect((await api('GET', '/api/v1/me', { cookie: s.cookie })).status).toBe(401);
  });
});

describe('origins', () => {
  it('Origin: null (or none) on a cookie-authenticated change → 403 JSON, not a 500', async () => {
    for (const headers of [{ origin: 'null' }, {} as Record<string, string>]) {
      const r = await api('POST', '/api/v1/tokens', { cookie: adminCookie, body: { name: 'x' }, headers });
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe('forbidden');
      expect(r.text).not.toMatch(/\bat .+:\d+:\d+/);
    }
    expect((await mutate('POST', '/api/v1/tokens', adminCookie, { name: 'ok' })).status).toBe(201);
  });
});

describe('the audit page', () => {
  it('shows the events to an admin, filtered', async () => {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await page.goto(`${stack.baseUrl}/login`);
    await page.getByLabel('User name').fill(ADMIN.name);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${stack.baseUrl}/`);
    await page.goto(`${stack.baseUrl}/settings`);
    await page.getByRole('link', { name: 'Open the audit log' }).click();
    await page.getByRole('heading', { name: 'Audit log' }).waitFor();
    await page.getByTestId('audit-table').getByText('user.create').first().waitFor();
    await page.getByLabel('Action').fill('login.lockout');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByTestId('audit-table').getByText('login:carol').waitFor();
    expect(await page.getByTestId('audit-table').getByText('user.create').count()).toBe(0);
    await ctx.close();
  });
});

describe('the data folder', () => {
  it('is private: no read or write for others, secret files 0600', () => {
    const mode = (p: string) => fs.statSync(p).mode & 0o777;
    // 0700, or 0710 (group postgres) when root runs the embedded server, whose postgres user must traverse it.
    expect([0o700, 0o710]).toContain(mode(stack.dataDir));
    if (mode(stack.dataDir) === 0o710) expect(fs.statSync(stack.dataDir).gid).toBe(fs.statSync(path.join(stack.dataDir, 'pg')).gid);
    for (const f of ['secret.key', 'pg.json']) expect(mode(path.join(stack.dataDir, f)), f).toBe(0o600);
  });
});
