// Issue #20 (5): bad bytes get a 400 naming the field, never a 500 — NUL
// bytes, lone surrogates and invalid UTF-8 in bodies, malformed
// percent-encoding and NUL in query parameters, path segments and cookies,
// JSON nested deeper than 64 (a 100k-deep body used to throw RangeError).
// Through the real route handlers, the sign-in route, the REST catalog's
// handler and the Next proxy, against a real migrated Postgres.
import { describe, expect, it } from 'vitest';
import { NextRequest } from 'next/server';
import { handleIcebergRest } from '@/lib/iceberg-rest';
import { proxy } from '@/proxy';
import * as tokens from './tokens/route';
import * as jobs from './jobs/route';
import * as audit from './audit/route';
import * as me from './me/route';
import * as pipelines from './pipelines/route';
import * as rest from './[...rest]/route';
import * as nextauth from '../auth/[...nextauth]/route';
import { serverDeps } from '@/app/_server/deps';
import { useRouteServer } from './test-server';

const BASE = 'http://127.0.0.1:8765';
const fx = useRouteServer({ name: 'bad-bytes', queue: true, roles: ['admin'], env: () => ({ NEXTAUTH_SECRET: 'bad-bytes-test-secret-0123456789', NEXTAUTH_URL: BASE }) });

type H = (r: Request, c: { params: Promise<Record<string, string>> }) => Promise<Response>;
async function send(h: H, method: string, url: string, o: { body?: string | Uint8Array; type?: string; cookie?: string; params?: Record<string, string>; token?: string | null } = {}) {
  const headers: Record<string, string> = { 'content-type': o.type ?? 'application/json' };
  const tk = o.token === undefined ? fx.tok.admin : o.token;
  if (tk) headers.authorization = `Bearer ${tk}`;
  if (o.cookie) headers.cookie = o.cookie;
  const res = await h(new Request(BASE + url, { method, headers, body: o.body as BodyInit | undefined }), { params: Promise.resolve(o.params ?? {}) });
  const text = await res.text();
  let body: any = null; // eslint-disable-line @typescript-eslint/no-explicit-any
  try { body = JSON.parse(text); } catch { /* not JSON */ }
  return { status: res.status, body, text };
}

function expect400(r: { status: number; body: any; text: string }, field: string) { // eslint-disable-line @typescript-eslint/no-explicit-any
  expect(r.status, r.text).toBe(400);
  expect(r.body.error).toMatchObject({ code: 'bad_request', field });
  expect(r.body.error.message).toContain(field);
}

describe('bodies', () => {
  it('NUL in a token name, a pipeline description and job params → 400 naming the field, nothing stored', async () => {
    expect400(await send(tokens.POST, 'POST', '/api/v1/tokens', { body: JSON.stringify({ name: 'ci\u0000x' }) }), 'name');
    expect400(await send(pipelines.POST, 'POST', '/api/v1/pipelines', { body: JSON.stringify({ name: 'p', description: 'a\u0000b', kind: 'system.check', params: {} }) }), 'description');
    expect400(await send(jobs.POST, 'POST', '/api/v1/jobs', { body: JSON.stringify({ kind: 'models.query', params: { sql: 'select 1\u0000' } }) }), 'params.sql');
    expect400(await send(jobs.POST, 'POST', '/api/v1/jobs', { body: JSON.stringify({ kind: 'system.check', params: { ['k\u0000']: 1 } }) }), 'params.k\u0000');
    const n = await fx.db.pool.query(`select (select count(*) from api_tokens)::int as t, (select count(*) from pipelines)::int as p, (select count(*) from job_runs)::int as j`);
    expect(n.rows[0]).toEqual({ t: 1, p: 0, j: 0 });
  });

  it('a lone surrogate escape and invalid UTF-8 → 400', async () => {
    expect400(await send(tokens.POST, 'POST', '/api/v1/tokens', { body: '{"name":"ci\\ud800"}' }), 'name');
    const bytes = Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xe0, 0xa4]), Buffer.from('"}')]);
    expect400(await send(tokens.POST, 'POST', '/api/v1/tokens', { body: new Uint8Array(bytes) }), 'body');
  });

  it('a 100k-deep JSON body → 400 before parsing (no RangeError, no 500)', async () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    const r = await send(jobs.POST, 'POST', '/api/v1/jobs', { body: `{"kind":"system.check","params":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}` });
    expect400(r, 'body');
    expect(r.body.error.message).toContain('deeper than 64');
    expect400(await send(tokens.POST, 'POST', '/api/v1/tokens', { body: deep }), 'body');
    // 64 levels are fine (then refused by the kind's schema, naming its field).
    const ok = await send(jobs.POST, 'POST', '/api/v1/jobs', { body: `{"kind":"system.check","params":{"holdSeconds":${'['.repeat(60)}${']'.repeat(60)}}}` });
    expect(ok.status).toBe(400);
    expect(ok.body.error).toMatchObject({ code: 'validation', field: 'params.holdSeconds' });
  });

  it('the sign-in form: NUL or a broken escape in the user name → 400 naming it, no 500', async () => {
    for (const username of ['root%00', 'ro%E0%A4%A']) {
      const r = await send(nextauth.POST as unknown as H, 'POST', '/api/auth/callback/credentials', {
        type: 'application/x-www-form-urlencoded', token: null, body: `username=${username}&password=x&csrfToken=t`, params: { nextauth: ['callback', 'credentials'] as unknown as string },
      });
      expect400(r, 'username');
    }
  });
});

describe('query strings, cookies and paths', () => {
  it('NUL and broken escapes in /jobs?… and /audit?… → 400 naming the parameter', async () => {
    expect400(await send(jobs.GET, 'GET', '/api/v1/jobs?kind=sys%00tem'), 'query.kind');
    expect400(await send(jobs.GET, 'GET', '/api/v1/jobs?kind=%E0%A4%A'), 'query.kind');
    expect400(await send(audit.GET, 'GET', '/api/v1/audit?actor=user:%00'), 'query.actor');
    expect400(await send(audit.GET, 'GET', '/api/v1/audit?target=%ZZ'), 'query.target');
    expect((await send(audit.GET, 'GET', '/api/v1/audit?actor=user%3Aroot')).status).toBe(200);
  });

  it('a malformed cookie → 400 naming it (with a token, and on a cookie session)', async () => {
    expect400(await send(me.GET, 'GET', '/api/v1/me', { cookie: 'foo=%E0%A4%A' }), 'cookie.foo');
    expect400(await send(me.GET, 'GET', '/api/v1/me', { cookie: 'a=1; next-auth.session-token=%00', token: null }), 'cookie.next-auth.session-token');
  });

  it('a path segment that does not decode → 400: /api/v1/%E0%A4%A and the REST catalog', async () => {
    expect400(await send(rest.GET as H, 'GET', '/api/v1/%E0%A4%A'), 'path');
    expect((await send(rest.GET as H, 'GET', '/api/v1/nothing-here')).status).toBe(404);
    const { env, pool, prisma } = serverDeps();
    const r = await handleIcebergRest(new Request(`${BASE}/iceberg/v1/namespaces/%E0%A4%A/tables`, { headers: { authorization: `Bearer ${fx.tok.admin}` } }), { env, pool, prisma });
    expect(r.status).toBe(400);
    expect((await r.json()).error).toMatchObject({ type: 'BadRequestException', code: 400, field: 'path' });
  });

  it('the Next proxy answers every such request 400 before routing (pages, API, catalog)', async () => {
    const at = (url: string, headers: Record<string, string> = {}) => proxy(new NextRequest(BASE + url, { headers }));
    for (const [url, field] of [['/api/v1/%E0%A4%A', 'path'], ['/jobs?x=%00', 'query.x'], ['/iceberg/v1/namespaces/%E0%A4%A/tables', 'path']]) {
      const r = at(url);
      expect(r.status, url).toBe(400);
      expect((await r.json()).error.field).toBe(field);
    }
    expect((await at('/iceberg/v1/namespaces/%E0%A4%A/tables').json()).error.type).toBe('BadRequestException');
    const c = at('/pipelines', { cookie: 'foo=%E0%A4%A' });
    expect(c.status).toBe(400);
    expect((await c.json()).error).toMatchObject({ code: 'bad_request', field: 'cookie.foo' });
    expect(at('/pipelines?tag=a%20b', { cookie: 'next-auth.csrf-token=abc%7Cdef' }).headers.get('x-middleware-next')).toBe('1');
  });
});
