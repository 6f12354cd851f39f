// Issue #13 through the /api/v1 handlers against a real migrated Postgres:
// origin rules for cookie sessions, credentials refused in params (field
// named, nothing stored), no secret in any job answer a viewer gets, the
// audit log (one row per action, with its actor; append-only; admin-only
// reads), revocable sessions, and /job-kinds agreeing with POST /jobs.
import { describe, expect, it } from 'vitest';
import { encode } from 'next-auth/jwt';
import { createUser, findSessionUser } from '@/lib/auth';
import * as jobs from './jobs/route';
import * as job from './jobs/[id]/route';
import * as cancel from './jobs/[id]/cancel/route';
import * as kinds from './job-kinds/route';
import * as tokens from './tokens/route';
import * as token from './tokens/[id]/route';
import * as users from './users/route';
import * as user from './users/[id]/route';
import * as sessions from './users/[id]/sessions/route';
import * as connections from './connections/route';
import * as connection from './connections/[id]/route';
import * as audit from './audit/route';
import * as me from './me/route';
import { serverDeps } from '@/app/_server/deps';
import { useRouteServer } from './test-server';

const BASE = 'http://127.0.0.1:8765';
// The server's settings are built by the helper, as `tributary serve` would parse them (no process.env).
const fx = useRouteServer({ name: 'security', queue: true });
const tok = fx.tok;

type Handler = (r: Request, c: { params: Promise<Record<string, string>> }) => Promise<Response>;
function req(method: string, url: string, o: { token?: string; cookie?: string; body?: unknown; headers?: Record<string, string>; noType?: boolean } = {}) {
  const headers: Record<string, string> = { ...(o.noType ? {} : { 'content-type': 'application/json' }), ...o.headers };
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  if (o.cookie) headers.cookie = o.cookie;
  return new Request(BASE + url, { method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body) });
}
async function call(h: Handler, r: Request, params: Record<string, string> = {}) {
  const res = await h(r, { params: Promise.resolve(params) });
  const text = await res.text();
  return { status: res.status, text, body: text ? JSON.parse(text) : null };
}
async function cookieOf(name: string) {
  const u = (await serverDeps().prisma.user.findUniqueOrThrow({ where: { name } }));
  const s = await findSessionUser(serverDeps().prisma, u.id);
  return `next-auth.session-token=${await encode({ token: { sub: u.id, name, role: u.role, sv: s!.sessionVersion }, secret: fx.secret })}`;
}
const same = { origin: BASE };
describe('origins of cookie-authenticated changes', () => {
  it('refuses Origin: null, a missing or foreign Origin and a non-JSON type with a 403 JSON error; accepts the panel', async () => {
    const cookie = await cookieOf('root');
    const post = (headers: Record<string, string>, noType = false) => call(tokens.POST, req('POST', '/api/v1/tokens', { cookie, body: { name: 't' }, headers, noType }));
    for (const h of <Record<string, string>[]>[{ origin: 'null' }, {}, { origin: 'http://evil.example' }, { origin: 'http://127.0.0.1:9999' }, { origin: 'null', 'sec-fetch-site': 'same-origin' }]) {
      const r = await post(h);
      expect(r.status, JSON.stringify(h)).toBe(403);
      expect(r.body.error.code).toBe('forbidden');
      expect(r.text).not.toMatch(/at \w+ \(|\.ts:\d+/);
    }
    expect((await post(same, true)).status).toBe(403);
    expect((await post({ ...same, 'content-type': 'text/plain' }, true)).status).toBe(403);
    expect((await post(same)).status).toBe(201);
    expect((await post({ 'sec-fetch-site': 'same-origin' })).status).toBe(201);
    // Reads need no Origin; bearer tokens are not subject to the rule.
    expect((await call(me.GET, req('GET', '/api/v1/me', { cookie }))).status).toBe(200);
    expect((await call(tokens.POST, req('POST', '/api/v1/tokens', { token: tok.admin, body: { name: 'b' }, headers: { origin: 'null' } }))).status).toBe(201);
  });

  it('takes the expected origin from TRIBUTARY_PUBLIC_URL', async () => {
    await fx.reopen({ TRIBUTARY_PUBLIC_URL: 'https://tributary.example.com/panel' });
    try {
      const cookie = await cookieOf('root');
      const post = (origin: string) => call(tokens.POST, req('POST', '/api/v1/tokens', { cookie, body: { name: 'p' }, headers: { origin } }));
      expect((await post(BASE)).status).toBe(403);
      expect((await post('https://tributary.example.com')).status).toBe(201);
    } finally {
      await fx.reopen();
    }
  });
});

describe('credentials in params', () => {
  const runs = async () => Number((await fx.db.pool.query('select count(*) from job_runs')).rows[0].count);
  const conns = async () => Number((await fx.db.pool.query('select count(*) from connections')).rows[0].count);

  it('refuses secret-looking job params with a 400 naming the field, storing nothing', async () => {
    const before = await runs();
    const cases: [unknown, string][] = [
      [{ holdSeconds: 0, nested: { deeper: { password: 'p' } } }, 'params.nested.deeper.password'],
      [{ apiKey: 'k' }, 'params.apiKey'],
      [{ list: [{ private_key: 'k' }] }, 'params.list[0].private_key'],
      [{ sourceUrl: 'postgres://app:hunter2@db:5432/erp' }, 'params.sourceUrl'],
      [{ striimUrl: 'http://admin:adminpw@127.0.0.1:9080' }, 'params.striimUrl'],
      [{ dsn: 'scott/tiger@db1:1521/ORCL' }, 'params.dsn'],
    ];
    for (const [params, field] of cases) {
      const r = await call(jobs.POST, req('POST', '/api/v1/jobs', { token: tok.operator, body: { kind: 'system.check', params } }));
      expect(r.status, field).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'validation', field });
      expect(r.text).not.toMatch(/hunter2|adminpw|tiger/);
    }
    expect(await runs()).toBe(before);
  });

  it('refuses credentials in connection params (create and patch) and keeps them fine in secrets', async () => {
    const before = await conns();
    const base = { name: 'pg1', kind: 'postgres', params: { host: 'db', database: 'erp', user: 'app' }, secrets: { password: 'in-secrets-is-right' } };
    for (const [params, field] of [
      [{ ...base.params, nested: { password: 'x' } }, 'params.nested.password'],
      [{ ...base.params, host: 'postgres://app:pw@db/erp' }, 'params.host'],
      [{ ...base.params, dsn: 'app/pw@db:1521/X' }, 'params.dsn'],
    ] as const) {
      const r = await call(connections.POST, req('POST', '/api/v1/connections', { token: tok.admin, body: { ...base, params } }));
      expect(r.status, field).toBe(400);
      expect(r.body.error.field).toBe(field);
    }
    expect(await conns()).toBe(before);
    expect((await call(connections.POST, req('POST', '/api/v1/connections', { token: tok.admin, body: base }))).status).toBe(201);
    const p = await call(connection.PATCH, req('PATCH', '/api/v1/connections/pg1', { token: tok.admin, body: { params: { extra: { token: 't' } } } }), { id: 'pg1' });
    expect(p.status).toBe(400);
    expect(p.body.error.field).toBe('params.extra.token');
    const stored = (await fx.db.pool.query(`select params from connections where name = 'pg1'`)).rows[0].params;
    expect(stored).toEqual(base.params);
  });
});

describe('what viewers see of jobs', () => {
  it('no secret in any listing or detail, even from rows stored before the rules', async () => {
    const id = '00000000-0000-4000-8000-00000000c0de';
    await fx.db.pool.query(`insert into job_runs (id, kind, params, status, created_by, error, result) values ($1, 'etl.run', $2, 'failed', 'user:old', $3, $4)`, [
      id,
      JSON.stringify({ mode: 'INITIAL', sourceUrl: 'postgres://app:SEKRIT1@db/erp', nested: { password: 'SEKRIT2' }, dsn: 'scott/SEKRIT3@db1:1521/ORCL' }),
      'etl: cannot connect to http://admin:SEKRIT4@striim:9080 (password=SEKRIT5)',
      JSON.stringify({ targetUrl: 'postgres://lake:SEKRIT6@lake/db' }),
    ]);
    await fx.db.pool.query(`insert into job_logs (run_id, level, message, fields) values ($1, 'info', 'login with token=SEKRIT7', $2)`, [id, JSON.stringify({ apiKey: 'SEKRIT8', url: 'https://u:SEKRIT9@h/x' })]);
    const answers = [
      await call(jobs.GET, req('GET', '/api/v1/jobs', { token: tok.viewer })),
      await call(jobs.GET, req('GET', '/api/v1/jobs?kind=etl.run&status=failed', { token: tok.viewer })),
      await call(job.GET, req('GET', `/api/v1/jobs/${id}`, { token: tok.viewer }), { id }),
      await call(job.GET, req('GET', `/api/v1/jobs/${id}`, { cookie: await cookieOf('vic') }), { id }),
      await call(connections.GET, req('GET', '/api/v1/connections', { token: tok.viewer })),
      await call(connection.GET, req('GET', '/api/v1/connections/pg1', { token: tok.viewer }), { id: 'pg1' }),
    ];
    for (const a of answers) {
      expect(a.status).toBe(200);
      expect(a.text).not.toMatch(/SEKRIT|in-secrets-is-right/);
    }
    const detail = answers[2].body;
    expect(detail.params.sourceUrl).toBe('postgres://app:***@db/erp');
    expect(detail.logs[0].message).toBe('login with token=***');
    expect(detail.error).toContain('http://admin:***@striim:9080');
  });
});

describe('the audit log', () => {
  it('has one row per action with its actor, no secret in it; admins only; filters and pages', async () => {
    const adminCookie = await cookieOf('root');
    const start = Number((await fx.db.pool.query('select coalesce(max(id), 0) as m from audit_events')).rows[0].m);
    const A = { token: tok.admin };
    const made = await call(users.POST, req('POST', '/api/v1/users', { ...A, body: { name: 'dora', password: 'dora-password-1', role: 'viewer' } }));
    const dora = made.body.id;
    await call(user.PATCH, req('PATCH', `/api/v1/users/${dora}`, { cookie: adminCookie, headers: same, body: { role: 'operator' } }), { id: dora });
    await call(user.PATCH, req('PATCH', `/api/v1/users/${dora}`, { ...A, body: { password: 'dora-password-2' } }), { id: dora });
    await call(sessions.DELETE, req('DELETE', `/api/v1/users/${dora}/sessions`, A), { id: dora });
    const t = await call(tokens.POST, req('POST', '/api/v1/tokens', { token: tok.operator, body: { name: 'audit-me' } }));
    await call(token.DELETE, req('DELETE', `/api/v1/tokens/${t.body.id}`, { token: tok.operator }), { id: t.body.id });
    await call(connections.POST, req('POST', '/api/v1/connections', { ...A, body: { name: 'smtp1', kind: 'smtp', params: { host: 'mail', from: 'ops@example.com' }, secrets: { password: 'AUDIT-SEKRIT' } } }));
    await call(connection.PATCH, req('PATCH', '/api/v1/connections/smtp1', { ...A, body: { params: { port: 2525 }, secrets: { password: 'AUDIT-SEKRIT-2' } } }), { id: 'smtp1' });
    await call(connection.DELETE, req('DELETE', '/api/v1/connections/smtp1', A), { id: 'smtp1' });
    const run = await call(jobs.POST, req('POST', '/api/v1/jobs', { token: tok.operator, body: { kind: 'system.check', params: { holdSeconds: 5 } } }));
    expect(run.status).toBe(202);
    await call(cancel.POST, req('POST', `/api/v1/jobs/${run.body.id}/cancel`, { token: tok.operator }), { id: run.body.id });
    await call(user.DELETE, req('DELETE', `/api/v1/users/${dora}`, A), { id: dora });

    const rows = (await fx.db.pool.query('select actor, action, target, before, after, address from audit_events where id > $1 order by id', [start])).rows;
    expect(rows.map((r) => [r.action, r.actor, r.target])).toEqual([
      ['user.create', 'token:root/t', 'user:dora'],
      ['user.update', 'user:root', 'user:dora'],
      ['user.update', 'token:root/t', 'user:dora'],
      ['user.end_sessions', 'token:root/t', 'user:dora'],
      ['token.create', 'token:olga/t', 'token:olga/audit-me'],
      ['token.revoke', 'token:olga/t', 'token:olga/audit-me'],
      ['connection.create', 'token:root/t', 'connection:smtp1'],
      ['connection.update', 'token:root/t', 'connection:smtp1'],
      ['connection.delete', 'token:root/t', 'connection:smtp1'],
      ['job.start', 'token:olga/t', `job:${run.body.id}`],
      ['job.cancel', 'token:olga/t', `job:${run.body.id}`],
      ['user.delete', 'token:root/t', 'user:dora'],
    ]);
    expect(rows[1]).toMatchObject({ before: { name: 'dora', role: 'viewer' }, after: { name: 'dora', role: 'operator' } });
    expect(rows[2].after).toMatchObject({ passwordChanged: true });
    expect(rows[7].after).toMatchObject({ params: { host: 'mail', port: 2525 }, changedSecrets: ['password'] });
    expect(JSON.stringify(rows)).not.toMatch(/AUDIT-SEKRIT|dora-password|\$2[aby]\$/);

    // Reading it: admins only, with filters and pages.
    expect((await call(audit.GET, req('GET', '/api/v1/audit', { token: tok.operator }))).status).toBe(403);
    expect((await call(audit.GET, req('GET', '/api/v1/audit', { token: tok.viewer }))).status).toBe(403);
    const byAction = await call(audit.GET, req('GET', '/api/v1/audit?action=user.update', A));
    expect(byAction.body.events.map((e: { actor: string }) => e.actor)).toEqual(['token:root/t', 'user:root']);
    const byActor = await call(audit.GET, req('GET', `/api/v1/audit?actor=${encodeURIComponent('token:olga/t')}`, A));
    expect(byActor.body.events.map((e: { action: string }) => e.action)).toEqual(['job.cancel', 'job.start', 'token.revoke', 'token.create']);
    const byTarget = await call(audit.GET, req('GET', '/api/v1/audit?target=connection:', A));
    // pg1 (created above) and smtp1's three events.
    expect(byTarget.body.events.map((e: { target: string }) => e.target)).toEqual(['connection:smtp1', 'connection:smtp1', 'connection:smtp1', 'connection:pg1']);
    const page1 = await call(audit.GET, req('GET', '/api/v1/audit?target=user:dora&limit=2', A));
    expect(page1.body.events).toHaveLength(2);
    const page2 = await call(audit.GET, req('GET', `/api/v1/audit?target=user:dora&limit=2&before=${page1.body.next}`, A));
    expect(Number(page2.body.events[0].id)).toBeLessThan(Number(page1.body.events[1].id));
    expect(page2.body.events.every((e: { target: string }) => e.target === 'user:dora')).toBe(true);
    const future = await call(audit.GET, req('GET', `/api/v1/audit?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`, A));
    expect(future.body.events).toEqual([]);
    expect((await call(audit.GET, req('GET', '/api/v1/audit?since=yesterday', A))).body.error.field).toBe('query.since');
  });

  it('is append-only for the application role', async () => {
    await expect(fx.db.pool.query(`update audit_events set actor = 'someone-else'`)).rejects.toThrow(/append-only/);
    await expect(fx.db.pool.query('delete from audit_events')).rejects.toThrow(/append-only/);
    await expect(fx.db.pool.query('truncate audit_events')).rejects.toThrow(/append-only/);
    expect(Number((await fx.db.pool.query('select count(*) from audit_events')).rows[0].count)).toBeGreaterThan(0);
  });
});

describe('sessions', () => {
  it('end when an admin ends them, and on a password change', async () => {
    const { prisma } = serverDeps();
    const sam = await createUser(prisma, { name: 'sam', password: 'sam-password', role: 'operator' });
    const c1 = await cookieOf('sam');
    expect((await call(me.GET, req('GET', '/api/v1/me', { cookie: c1 }))).status).toBe(200);
    expect((await call(sessions.DELETE, req('DELETE', `/api/v1/users/${sam.id}/sessions`, { token: tok.operator }), { id: sam.id })).status).toBe(403);
    expect((await call(sessions.DELETE, req('DELETE', `/api/v1/users/${sam.id}/sessions`, { token: tok.admin }), { id: sam.id })).status).toBe(200);
    expect((await call(me.GET, req('GET', '/api/v1/me', { cookie: c1 }))).status).toBe(401);
    const c2 = await cookieOf('sam');
    expect((await call(me.GET, req('GET', '/api/v1/me', { cookie: c2 }))).status).toBe(200);
    await call(user.PATCH, req('PATCH', `/api/v1/users/${sam.id}`, { token: tok.admin, body: { password: 'sam-password-2' } }), { id: sam.id });
    expect((await call(me.GET, req('GET', '/api/v1/me', { cookie: c2 }))).status).toBe(401);
    expect((await call(sessions.DELETE, req('DELETE', '/api/v1/users/00000000-0000-4000-8000-000000000000/sessions', { token: tok.admin }), { id: '00000000-0000-4000-8000-000000000000' })).status).toBe(404);
  });
});

describe('job kinds and roles', () => {
  it('/job-kinds reports exactly the role POST /jobs enforces, kind by kind', async () => {
    const { body } = await call(kinds.GET, req('GET', '/api/v1/job-kinds', { token: tok.viewer }));
    expect(body.kinds.length).toBeGreaterThan(3);
    const rank = { viewer: 0, operator: 1, admin: 2 } as const;
    for (const k of body.kinds as { kind: string; role: keyof typeof rank }[]) {
      for (const who of ['viewer', 'operator'] as const) {
        // Invalid params on purpose: a refused role is 403, an allowed one gets to validation (400).
        const r = await call(jobs.POST, req('POST', '/api/v1/jobs', { token: tok[who], body: { kind: k.kind, params: { notAParam: 1, runId: -1 } } }));
        expect(r.status === 403, `${who} ${k.kind} (${k.role}) → ${r.status}`).toBe(rank[who] < rank[k.role]);
      }
    }
  });
});
