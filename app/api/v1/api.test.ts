// The /api/v1 route handlers called directly with Request objects, against a
// real migrated Postgres and a real worker: auth, roles, validation, the
// error body, and the job path end to end (no browser; e2e/ covers the panel).
import { describe, expect, it } from 'vitest';
import { encode } from 'next-auth/jwt';
import { createApiToken, createUser } from '@/lib/auth';
import * as health from './health/route';
import * as jobs from './jobs/route';
import * as job from './jobs/[id]/route';
import * as cancel from './jobs/[id]/cancel/route';
import * as kinds from './job-kinds/route';
import * as tokens from './tokens/route';
import * as token from './tokens/[id]/route';
import * as users from './users/route';
import * as user from './users/[id]/route';
import * as me from './me/route';
import * as setup from './setup/route';
import * as iceberg from '../../iceberg/v1/[...path]/route';
import { serverDeps } from '@/app/_server/deps';
import { useRouteServer } from './test-server';

const BASE = 'http://127.0.0.1:8765';
// No test users: the first describe creates the first admin through the setup route, then the others.
const fx = useRouteServer({ name: 'api', queue: true, roles: [] });
const tok: Record<'admin' | 'operator' | 'viewer', string> = { admin: '', operator: '', viewer: '' };
let adminId = '';
let adminCookie = '';

function req(method: string, url: string, opts: { token?: string; cookie?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.cookie) headers.cookie = opts.cookie;
  const body = opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
  if (body !== undefined) headers['content-type'] = 'application/json';
  return new Request(BASE + url, { method, headers, body });
}
const ctx = (params: Record<string, string> = {}) => ({ params: Promise.resolve(params) });
async function call(handler: (r: Request, c: ReturnType<typeof ctx>) => Promise<Response>, r: Request, params?: Record<string, string>) {
  const res = await handler(r, ctx(params));
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
}
const runCount = async () => Number((await fx.db.pool.query('select count(*) from job_runs')).rows[0].count);

describe('first run', () => {
  it('creates the first admin once, then refuses', async () => {
    expect((await call(setup.GET, req('GET', '/api/v1/setup'))).body).toEqual({ needed: true });
    const short = await call(setup.POST, req('POST', '/api/v1/setup', { body: { name: 'root', password: 'short' } }));
    expect(short.status).toBe(400);
    expect(short.body.error.field).toBe('password');
    const made = await call(setup.POST, req('POST', '/api/v1/setup', { body: { name: 'root', password: 'root-password' } }));
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ name: 'root', role: 'admin' });
    adminId = made.body.id;
    const again = await call(setup.POST, req('POST', '/api/v1/setup', { body: { name: 'evil', password: 'evil-password' } }));
    expect(again.status).toBe(409);
    expect((await call(setup.GET, req('GET', '/api/v1/setup'))).body).toEqual({ needed: false });

    const { prisma } = serverDeps();
    await createUser(prisma, { name: 'olga', password: 'operator-pw', role: 'operator' });
    await createUser(prisma, { name: 'vic', password: 'viewer-pwd', role: 'viewer' });
    tok.admin = (await createApiToken(prisma, { user: 'root', name: 'admin-t' })).token;
    tok.operator = (await createApiToken(prisma, { user: 'olga', name: 'ci' })).token;
    tok.viewer = (await createApiToken(prisma, { user: 'vic', name: 'dash' })).token;
    adminCookie = `next-auth.session-token=${await encode({ token: { sub: adminId, name: 'root', role: 'admin' }, secret: fx.secret })}`;
  });
});

describe('authentication and roles', () => {
  it('health needs no credentials', async () => {
    const r = await call(health.GET, req('GET', '/api/v1/health'));
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'ok', database: 'ok' });
  });

  it('no credentials → 401 with the error body', async () => {
    const r = await call(jobs.GET, req('GET', '/api/v1/jobs'));
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('unauthorized');
    expect(typeof r.body.error.message).toBe('string');
    expect(r.headers.get('www-authenticate')).toMatch(/Bearer/);
    expect((await call(jobs.POST, req('POST', '/api/v1/jobs', { body: { kind: 'system.check' } }))).status).toBe(401);
  });

  it('unknown, malformed or revoked tokens → 401', async () => {
    expect((await call(jobs.GET, req('GET', '/api/v1/jobs', { token: 'trb_nope' }))).status).toBe(401);
    expect((await call(jobs.GET, req('GET', '/api/v1/jobs', { headers: { authorization: 'Basic abc' } }))).status).toBe(401);
    const t = await call(tokens.POST, req('POST', '/api/v1/tokens', { token: tok.viewer, body: { name: 'short-lived' } }));
    expect(t.status).toBe(201);
    expect((await call(me.GET, req('GET', '/api/v1/me', { token: t.body.token }))).status).toBe(200);
    expect((await call(token.DELETE, req('DELETE', `/api/v1/tokens/${t.body.id}`, { token: tok.viewer }), { id: t.body.id })).status).toBe(200);
    expect((await call(me.GET, req('GET', '/api/v1/me', { token: t.body.token }))).status).toBe(401);
  });

  it('a viewer reads but cannot start or cancel jobs (403), and nothing is written', async () => {
    expect((await call(jobs.GET, req('GET', '/api/v1/jobs', { token: tok.viewer }))).status).toBe(200);
    const before = await runCount();
    const r = await call(jobs.POST, req('POST', '/api/v1/jobs', { token: tok.viewer, body: { kind: 'system.check' } }));
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('forbidden');
    expect(await runCount()).toBe(before);
    expect((await call(users.GET, req('GET', '/api/v1/users', { token: tok.operator }))).status).toBe(403);
  });

  it('a session cookie authenticates, and a cross-origin state change with it is refused', async () => {
    const who = await call(me.GET, req('GET', '/api/v1/me', { cookie: adminCookie }));
    expect(who.body).toMatchObject({ name: 'root', role: 'admin', via: 'session' });
    const forged = `next-auth.session-token=${await encode({ token: { sub: adminId, name: 'root', role: 'admin' }, secret: 'another-secret-entirely' })}`;
    expect((await call(me.GET, req('GET', '/api/v1/me', { cookie: forged }))).status).toBe(401);
    const cross = await call(tokens.POST, req('POST', '/api/v1/tokens', { cookie: adminCookie, body: { name: 'x' }, headers: { origin: 'http://evil.example', host: '127.0.0.1:8765' } }));
    expect(cross.status).toBe(403);
    const same = await call(tokens.POST, req('POST', '/api/v1/tokens', { cookie: adminCookie, body: { name: 'x' }, headers: { origin: BASE, host: '127.0.0.1:8765' } }));
    expect(same.status).toBe(201);
  });
});

describe('bad input → 400 with a field, nothing half-written', () => {
  const post = (body: { raw?: string; body?: unknown; headers?: Record<string, string> }) =>
    call(jobs.POST, req('POST', '/api/v1/jobs', { token: tok.operator, ...body }));

  it('malformed JSON', async () => {
    const before = await runCount();
    const r = await post({ raw: '{"kind": "system.check",' });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'bad_request', field: 'body' });
    expect(await runCount()).toBe(before);
  });

  it('missing and unknown job kinds', async () => {
    const before = await runCount();
    const missing = await post({ body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.error.field).toBe('kind');
    const unknown = await post({ body: { kind: 'no.such.kind' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: 'validation', field: 'kind' });
    expect(await runCount()).toBe(before);
  });

  it('a payload failing its schema names the field', async () => {
    const before = await runCount();
    const r = await post({ body: { kind: 'system.check', params: { holdSeconds: 'soon' } } });
    expect(r.status).toBe(400);
    expect(r.body.error.field).toBe('params.holdSeconds');
    const extra = await post({ body: { kind: 'system.check', params: { bogus: 1 } } });
    expect(extra.status).toBe(400);
    expect(extra.body.error.field).toMatch(/^params/);
    // beside kind and params too: a misspelt `parmas` must not start the job with its defaults
    const beside = await post({ body: { kind: 'system.check', parmas: { holdSeconds: 1 } } });
    expect(beside.status).toBe(400);
    expect(beside.body.error).toMatchObject({ code: 'validation', field: 'parmas' });
    expect(await runCount()).toBe(before);
  });

  it('an oversized body, declared or streamed', async () => {
    const before = await runCount();
    const big = JSON.stringify({ kind: 'system.check', params: { pad: 'x'.repeat(1_100_000) } }); // over the 1 MiB limit
    const r = await post({ raw: big });
    expect(r.status).toBe(413);
    expect(r.body.error).toMatchObject({ code: 'payload_too_large', field: 'body' });
    // Without Content-Length (a chunked upload): counted while reading.
    const stream = new ReadableStream({ start(c) { c.enqueue(new TextEncoder().encode(big)); c.close(); } });
    const chunked = await jobs.POST(new Request(BASE + '/api/v1/jobs', { method: 'POST', body: stream, headers: { authorization: `Bearer ${tok.operator}` }, duplex: 'half' } as RequestInit), ctx());
    expect(chunked.status).toBe(413);
    expect(await runCount()).toBe(before);
  });

  it('bad query values', async () => {
    const r = await call(jobs.GET, req('GET', '/api/v1/jobs?status=sleeping', { token: tok.viewer }));
    expect(r.status).toBe(400);
    expect(r.body.error.field).toBe('query.status');
  });
});

describe('jobs', () => {
  it('enqueue → 202 { id }; a worker runs it to success with progress and log lines', async () => {
    const kindsRes = await call(kinds.GET, req('GET', '/api/v1/job-kinds', { token: tok.viewer }));
    expect(kindsRes.body.kinds.map((k: { kind: string }) => k.kind)).toContain('system.check');

    const r = await call(jobs.POST, req('POST', '/api/v1/jobs', { token: tok.operator, body: { kind: 'system.check' } }));
    expect(r.status).toBe(202);
    expect(r.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.headers.get('location')).toBe(`/api/v1/jobs/${r.body.id}`);

    const queued = await call(job.GET, req('GET', `/api/v1/jobs/${r.body.id}`, { token: tok.viewer }), { id: r.body.id });
    expect(queued.body).toMatchObject({ id: r.body.id, kind: 'system.check', createdBy: 'token:olga/ci' });

    await fx.startWorker({ heartbeatMs: 500 });
    let run = queued.body;
    for (let i = 0; i < 200 && !['succeeded', 'failed', 'cancelled'].includes(run.status); i++) {
      await new Promise((res) => setTimeout(res, 100));
      run = (await call(job.GET, req('GET', `/api/v1/jobs/${r.body.id}`, { token: tok.viewer }), { id: r.body.id })).body;
    }
    expect(run.status).toBe('succeeded');
    expect(run.progress).toEqual({ done: 3, total: 3 });
    expect(run.logs.length).toBeGreaterThan(0);
    expect(run.finishedAt).not.toBeNull();

    // A live tail asks only for lines after the last one seen.
    const lastId = run.logs[run.logs.length - 1].id;
    const tail = await call(job.GET, req('GET', `/api/v1/jobs/${r.body.id}?afterLogId=${lastId}`, { token: tok.viewer }), { id: r.body.id });
    expect(tail.body.logs).toEqual([]);

    const list = await call(jobs.GET, req('GET', '/api/v1/jobs?status=succeeded&kind=system.check', { token: tok.viewer }));
    expect(list.body.runs.map((x: { id: string }) => x.id)).toContain(r.body.id);

    // Finished runs cannot be cancelled.
    const late = await call(cancel.POST, req('POST', `/api/v1/jobs/${r.body.id}/cancel`, { token: tok.operator }), { id: r.body.id });
    expect(late.status).toBe(409);
  });

  it('cancel: viewers cannot, operators stop a long run', async () => {
    const r = await call(jobs.POST, req('POST', '/api/v1/jobs', { token: tok.operator, body: { kind: 'system.check', params: { holdSeconds: 60 } } }));
    expect(r.status).toBe(202);
    expect((await call(cancel.POST, req('POST', `/api/v1/jobs/${r.body.id}/cancel`, { token: tok.viewer }), { id: r.body.id })).status).toBe(403);
    const c = await call(cancel.POST, req('POST', `/api/v1/jobs/${r.body.id}/cancel`, { token: tok.operator }), { id: r.body.id });
    expect(c.status).toBe(200);
    let run = c.body;
    for (let i = 0; i < 300 && run.status !== 'cancelled' && run.status !== 'failed'; i++) {
      await new Promise((res) => setTimeout(res, 100));
      run = (await call(job.GET, req('GET', `/api/v1/jobs/${r.body.id}`, { token: tok.viewer }), { id: r.body.id })).body;
    }
    expect(run.status).toBe('cancelled');
  });

  it('unknown run → 404', async () => {
    const r = await call(job.GET, req('GET', '/api/v1/jobs/00000000-0000-0000-0000-000000000000', { token: tok.viewer }), { id: '00000000-0000-0000-0000-000000000000' });
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('not_found');
    expect((await call(job.GET, req('GET', '/api/v1/jobs/nope', { token: tok.viewer }), { id: 'nope' })).status).toBe(404);
  });
});

describe('tokens and users', () => {
  it('a token carries its creator role and is listed without its secret', async () => {
    const created = await call(tokens.POST, req('POST', '/api/v1/tokens', { token: tok.operator, body: { name: 'deploy' } }));
    expect(created.body).toMatchObject({ name: 'deploy', role: 'operator', userName: 'olga' });
    const mine = await call(tokens.GET, req('GET', '/api/v1/tokens', { token: tok.operator }));
    expect(mine.body.tokens.every((t: { userName: string }) => t.userName === 'olga')).toBe(true);
    expect(JSON.stringify(mine.body)).not.toContain(created.body.token);
    const all = await call(tokens.GET, req('GET', '/api/v1/tokens', { token: tok.admin }));
    expect(new Set(all.body.tokens.map((t: { userName: string }) => t.userName)).size).toBeGreaterThan(1);
    // An operator cannot revoke the admin's token.
    const adminTok = all.body.tokens.find((t: { userName: string }) => t.userName === 'root');
    expect((await call(token.DELETE, req('DELETE', `/api/v1/tokens/${adminTok.id}`, { token: tok.operator }), { id: adminTok.id })).status).toBe(404);
    const bad = await call(tokens.POST, req('POST', '/api/v1/tokens', { token: tok.operator, body: { name: '' } }));
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe('name');
  });

  it('only an admin creates a token that vends object-store credentials; the Iceberg REST route takes tokens', async () => {
    const refused = await call(tokens.POST, req('POST', '/api/v1/tokens', { token: tok.operator, body: { name: 'spark', vendCredentials: true } }));
    expect(refused.status).toBe(403);
    expect(refused.body.error.field).toBe('vendCredentials');
    const made = await call(tokens.POST, req('POST', '/api/v1/tokens', { token: tok.admin, body: { name: 'spark', vendCredentials: true } }));
    expect(made.status).toBe(201);
    expect(made.body.vendCredentials).toBe(true);
    expect((await call(tokens.POST, req('POST', '/api/v1/tokens', { token: tok.admin, body: { name: 'plain' } }))).body.vendCredentials).toBe(false);
    const anon = await iceberg.GET(req('GET', '/iceberg/v1/config'));
    expect(anon.status).toBe(401);
    expect((await anon.json()).error.type).toBe('NotAuthorizedException');
    const cfg = await iceberg.GET(req('GET', '/iceberg/v1/config', { token: tok.viewer }));
    expect(cfg.status).toBe(200);
    expect((await cfg.json()).endpoints).toContain('GET /v1/{prefix}/namespaces');
    expect((await iceberg.POST(req('POST', '/iceberg/v1/namespaces', { token: tok.admin, body: { namespace: ['x'] } }))).status).toBe(406);
  });

  it('admins manage users; bad roles and duplicates are refused', async () => {
    const made = await call(users.POST, req('POST', '/api/v1/users', { token: tok.admin, body: { name: 'newbie', password: 'newbie-pass', role: 'viewer' } }));
    expect(made.status).toBe(201);
    expect(made.body).not.toHaveProperty('passwordHash');
    const dup = await call(users.POST, req('POST', '/api/v1/users', { token: tok.admin, body: { name: 'newbie', password: 'newbie-pass', role: 'viewer' } }));
    expect(dup.status).toBe(409);
    const badRole = await call(users.POST, req('POST', '/api/v1/users', { token: tok.admin, body: { name: 'x', password: 'long-enough', role: 'root' } }));
    expect(badRole.status).toBe(400);
    expect(badRole.body.error.field).toBe('role');
    expect((await call(users.POST, req('POST', '/api/v1/users', { token: tok.operator, body: { name: 'y', password: 'long-enough', role: 'admin' } }))).status).toBe(403);
    const up = await call(user.PATCH, req('PATCH', `/api/v1/users/${made.body.id}`, { token: tok.admin, body: { role: 'operator' } }), { id: made.body.id });
    expect(up.body.role).toBe('operator');
    expect((await call(user.DELETE, req('DELETE', `/api/v1/users/${adminId}`, { token: tok.admin }), { id: adminId })).status).toBe(409);
    expect((await call(user.DELETE, req('DELETE', `/api/v1/users/${made.body.id}`, { token: tok.admin }), { id: made.body.id })).status).toBe(200);
    const list = await call(users.GET, req('GET', '/api/v1/users', { token: tok.admin }));
    expect(list.body.users.map((u: { name: string }) => u.name).sort()).toEqual(['olga', 'root', 'vic']);
  });
});
