// Issue #20 (5, 6) against the real stack (`tributary serve`: `next start`,
// the proxy, embedded Postgres, one worker) over HTTP: bytes that do not
// decode in a path, a cookie or the sign-in form get the JSON 400 naming the
// field — also where Next's router would decode the path first — and the web
// process and the worker, connected as the non-superuser `tributary_app`,
// still sign in, start a job and run it.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from './stack';

const ADMIN = { name: 'admin', password: 'admin-e2e-password' };
let stack: Stack;

const cookiesOf = (res: Response) => res.headers.getSetCookie().map((c) => c.split(';')[0]);

beforeAll(async () => {
  stack = await startStack({ admin: ADMIN });
}, 20 * 60_000);

afterAll(async () => {
  await stack?.stop();
});

async function get(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(stack.baseUrl + url, { headers, redirect: 'manual' });
  const text = await res.text();
  let body: any = null; // eslint-disable-line @typescript-eslint/no-explicit-any
  try { body = JSON.parse(text); } catch { /* HTML */ }
  return { status: res.status, body, text };
}

describe('bad bytes through the served app', () => {
  it('a path that does not decode → JSON 400 naming `path` (API and REST catalog)', async () => {
    const a = await get('/api/v1/%E0%A4%A');
    expect(a.status, a.text.slice(0, 300)).toBe(400);
    expect(a.body.error).toMatchObject({ code: 'bad_request', field: 'path' });
    const i = await get('/iceberg/v1/namespaces/%E0%A4%A/tables');
    expect(i.status).toBe(400);
    expect(i.body.error).toMatchObject({ type: 'BadRequestException', code: 400, field: 'path' });
  });

  it('a malformed cookie or a NUL in a query → 400 naming it, on pages and API routes', async () => {
    const c = await get('/login', { cookie: 'foo=%E0%A4%A' });
    expect(c.status).toBe(400);
    expect(c.body.error.field).toBe('cookie.foo');
    const q = await get('/api/v1/jobs?kind=%00');
    expect(q.status).toBe(400);
    expect(q.body.error.field).toBe('query.kind');
  });

  it('a NUL in the sign-in user name → 400 naming it', async () => {
    const csrf = await fetch(`${stack.baseUrl}/api/auth/csrf`);
    const { csrfToken } = await csrf.json();
    const res = await fetch(`${stack.baseUrl}/api/auth/callback/credentials`, {
      method: 'POST', redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookiesOf(csrf).join('; '), origin: stack.baseUrl },
      body: `csrfToken=${encodeURIComponent(csrfToken)}&username=admin%00&password=x&json=true`,
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error.field).toBe('username');
  });
});

describe('the stack runs as the application role', () => {
  it('has its password file at 0600, signs in, and a worker runs a job', async () => {
    expect(fs.statSync(path.join(stack.dataDir, 'pg-app.password')).mode & 0o777).toBe(0o600);
    const csrf = await fetch(`${stack.baseUrl}/api/auth/csrf`);
    const { csrfToken } = await csrf.json();
    const jar = cookiesOf(csrf);
    const login = await fetch(`${stack.baseUrl}/api/auth/callback/credentials`, {
      method: 'POST', redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: jar.join('; '), origin: stack.baseUrl },
      body: new URLSearchParams({ csrfToken, username: ADMIN.name, password: ADMIN.password, json: 'true', callbackUrl: `${stack.baseUrl}/` }),
    });
    const cookie = [...jar, ...cookiesOf(login).filter((x) => x.startsWith('next-auth.session-token='))].join('; ');
    const started = await fetch(`${stack.baseUrl}/api/v1/jobs`, {
      method: 'POST', headers: { cookie, origin: stack.baseUrl, 'content-type': 'application/json' }, body: JSON.stringify({ kind: 'system.check' }),
    });
    expect(started.status, await started.clone().text()).toBe(202);
    const { id } = await started.json();
    const until = Date.now() + 120_000;
    let status = 'queued';
    while (!['succeeded', 'failed'].includes(status) && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 500));
      status = (await (await fetch(`${stack.baseUrl}/api/v1/jobs/${id}`, { headers: { cookie } })).json()).status;
    }
    expect(status).toBe('succeeded');
    const audit = await (await fetch(`${stack.baseUrl}/api/v1/audit?action=job.start`, { headers: { cookie } })).json();
    expect(audit.events.length).toBeGreaterThan(0);
  });
});
