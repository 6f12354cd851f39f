// The enqueueing routes' guards (issue 28), called with Request objects against
// a real migrated Postgres, no worker (runs stay queued): Idempotency-Key on
// POST /jobs, pipeline runs and flow runs; 429 + Retry-After past the queue's
// limits; and a body the client abandoned creates nothing and logs nothing.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createApiToken, createUser } from '@/lib/auth';
import { jobs as jobRegistry } from '@/app/_server/jobs';
import * as jobs from './route';
import * as pipelines from '../pipelines/route';
import * as pipelineRun from '../pipelines/[id]/run/route';
import * as flows from '../flows/route';
import * as flowRun from '../flows/[id]/run/route';
import { buildOpenApi } from '@/lib/api/openapi';
import { apiRoutes } from '@/app/_server/api-routes';
import { serverDeps } from '@/app/_server/deps';
import { useRouteServer } from '../test-server';

const BASE = 'http://127.0.0.1:8765';
const MAX_DEPTH = 12;
const tok = { operator: '', operator2: '', other: '' };
// olga (the shared operator) with a second token, and a second operator, otto: keys are per token.
const fx = useRouteServer({
  name: 'guards', queue: true, roles: ['operator'],
  env: () => ({ TRIBUTARY_QUEUE_MAX_DEPTH: String(MAX_DEPTH), TRIBUTARY_QUEUE_MAX_AGE_SECONDS: '600', TRIBUTARY_QUEUE_RETRY_AFTER_SECONDS: '17' }),
  seed: async ({ tok: shared }) => {
    const { prisma } = serverDeps();
    await createUser(prisma, { name: 'otto', password: 'operator-pw', role: 'operator' });
    tok.operator = shared.operator;
    tok.operator2 = (await createApiToken(prisma, { user: 'olga', name: 'laptop' })).token;
    tok.other = (await createApiToken(prisma, { user: 'otto', name: 'ci' })).token;
  },
});
type Handler = (r: Request, c: { params: Promise<Record<string, string>> }) => Promise<Response>;

function req(method: string, url: string, token: string, body?: unknown, headers: Record<string, string> = {}) {
  const h: Record<string, string> = { authorization: `Bearer ${token}`, ...headers };
  if (body !== undefined) h['content-type'] = 'application/json';
  return new Request(BASE + url, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) });
}
async function call(handler: Handler, r: Request, params: Record<string, string> = {}) {
  const res = await handler(r, { params: Promise.resolve(params) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
}
const count = async (sql: string) => Number((await fx.db.pool.query(sql)).rows[0].n);
const runs = () => count('select count(*) n from job_runs');
const queueJobs = () => count(`select count(*) n from pgboss.job where name = 'tributary-jobs'`);
const post = (key: string | undefined, body: unknown, token = tok.operator) =>
  call(jobs.POST, req('POST', '/api/v1/jobs', token, body, key === undefined ? {} : { 'Idempotency-Key': key }));

beforeEach(async () => {
  // Each case starts from an empty queue (and so under its limits).
  await fx.db.pool.query(`update job_runs set status = 'cancelled', finished_at = now() where status = 'queued'`);
});

describe('Idempotency-Key', () => {
  it('the same key twice → one job: the repeat answers 202 with the same id and Idempotent-Replayed: true', async () => {
    const [r0, q0] = [await runs(), await queueJobs()];
    const first = await post('k-same-1', { kind: 'system.check', params: { holdSeconds: 1 } });
    expect(first.status).toBe(202);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    // Same request, keys written in another order: the same request.
    const again = await post('k-same-1', { params: { holdSeconds: 1 }, kind: 'system.check' });
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    expect(again.headers.get('location')).toBe(`/api/v1/jobs/${first.body.id}`);
    // Another token of the same user shares the user's keys.
    const viaLaptop = await post('k-same-1', { kind: 'system.check', params: { holdSeconds: 1 } }, tok.operator2);
    expect(viaLaptop.body.id).toBe(first.body.id);
    expect(await runs()).toBe(r0 + 1);
    expect(await queueJobs()).toBe(q0 + 1);
  });

  it('the same key with another body → 422 idempotency_mismatch, nothing created', async () => {
    await post('k-diff', { kind: 'system.check' });
    const [r0, q0] = [await runs(), await queueJobs()];
    const other = await post('k-diff', { kind: 'system.check', params: { holdSeconds: 2 } });
    expect(other.status).toBe(422);
    expect(other.body.error).toMatchObject({ code: 'idempotency_mismatch', field: 'Idempotency-Key' });
    expect(await runs()).toBe(r0);
    expect(await queueJobs()).toBe(q0);
  });

  it('keys are per user: another user with the same key gets a job of their own', async () => {
    const a = await post('k-user', { kind: 'system.check' });
    const b = await post('k-user', { kind: 'system.check' }, tok.other);
    expect(b.status).toBe(202);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    expect(b.body.id).not.toBe(a.body.id);
  });

  it('eight concurrent requests with one key create one job, and all eight answer with it', async () => {
    const r0 = await runs();
    const all = await Promise.all(Array.from({ length: 8 }, () => post('k-race', { kind: 'system.check' })));
    expect(all.map((r) => r.status)).toEqual(Array(8).fill(202));
    expect(new Set(all.map((r) => r.body.id)).size).toBe(1);
    expect(all.filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(7);
    expect(await runs()).toBe(r0 + 1);
  });

  it('a key older than 24 hours is taken afresh; a malformed key is a 400 naming the header', async () => {
    const first = await post('k-old', { kind: 'system.check' });
    await fx.db.pool.query(`update idempotency_keys set created_at = now() - interval '25 hours' where key = 'k-old'`);
    const later = await post('k-old', { kind: 'system.check' });
    expect(later.status).toBe(202);
    expect(later.body.id).not.toBe(first.body.id);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    const bad = await post('has space', { kind: 'system.check' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe('Idempotency-Key');
    expect((await post('x'.repeat(256), { kind: 'system.check' })).status).toBe(400);
  });

  it('pipeline runs and flow runs honour it too', async () => {
    expect((await call(pipelines.POST, req('POST', '/api/v1/pipelines', tok.operator, { name: 'probe', kind: 'system.check' }))).status).toBe(201);
    const runP = (key: string, id = 'probe') => call(pipelineRun.POST, req('POST', `/api/v1/pipelines/${id}/run`, tok.operator, undefined, { 'Idempotency-Key': key }), { id });
    const p1 = await runP('k-pipe');
    const p2 = await runP('k-pipe');
    expect([p1.status, p2.status]).toEqual([202, 202]);
    expect(p2.body.id).toBe(p1.body.id);
    expect(p2.headers.get('idempotent-replayed')).toBe('true');
    expect(await count(`select count(*) n from pipeline_runs where job_run_id = '${p1.body.id}'`)).toBe(1);
    expect(await count('select count(*) n from pipeline_runs')).toBe(1);
    // The same key on another pipeline's run (another path) is another request.
    expect((await call(pipelines.POST, req('POST', '/api/v1/pipelines', tok.operator, { name: 'probe2', kind: 'system.check' }))).status).toBe(201);
    expect((await runP('k-pipe', 'probe2')).status).toBe(422);

    const made = await call(flows.POST, req('POST', '/api/v1/flows', tok.operator, { name: 'once', nodes: [{ id: 'probe', pipeline: 'probe' }] }));
    expect(made.status).toBe(201);
    const runF = (key: string) => call(flowRun.POST, req('POST', '/api/v1/flows/once/run', tok.operator, undefined, { 'Idempotency-Key': key }), { id: 'once' });
    const f1 = await runF('k-flow');
    const f2 = await runF('k-flow');
    expect([f1.status, f2.status]).toEqual([202, 202]);
    expect(f2.body.id).toBe(f1.body.id);
    expect(f2.headers.get('idempotent-replayed')).toBe('true');
    expect(await count('select count(*) n from flow_runs')).toBe(1);
  });
});

describe('load shedding', () => {
  it(`429 with Retry-After once ${MAX_DEPTH} runs wait, creating nothing; a replay is still answered`, async () => {
    const keep = await post('k-before-full', { kind: 'system.check' });
    for (let i = 1; i < MAX_DEPTH; i++) expect((await post(undefined, { kind: 'system.check' })).status).toBe(202);
    const [r0, q0] = [await runs(), await queueJobs()];
    const full = await post(undefined, { kind: 'system.check' });
    expect(full.status).toBe(429);
    expect(full.headers.get('retry-after')).toBe('17');
    expect(full.body.error.code).toBe('rate_limited');
    expect(full.body.error.message).toMatch(/TRIBUTARY_QUEUE_MAX_DEPTH/);
    expect((await call(pipelineRun.POST, req('POST', '/api/v1/pipelines/probe/run', tok.operator), { id: 'probe' })).status).toBe(429);
    expect((await call(flowRun.POST, req('POST', '/api/v1/flows/once/run', tok.operator), { id: 'once' })).status).toBe(429);
    const replay = await post('k-before-full', { kind: 'system.check' });
    expect(replay.status).toBe(202);
    expect(replay.body.id).toBe(keep.body.id);
    expect(await runs()).toBe(r0);
    expect(await queueJobs()).toBe(q0);
    // A worker took some: accepted again.
    await fx.db.pool.query(`update job_runs set status = 'succeeded', finished_at = now() where id = $1`, [keep.body.id]);
    expect((await post(undefined, { kind: 'system.check' })).status).toBe(202);
  });

  it('429 while the oldest waiting run has waited past TRIBUTARY_QUEUE_MAX_AGE_SECONDS', async () => {
    const old = await post(undefined, { kind: 'system.check' });
    await fx.db.pool.query(`update job_runs set created_at = now() - interval '11 minutes' where id = $1`, [old.body.id]);
    const behind = await post(undefined, { kind: 'system.check' });
    expect(behind.status).toBe(429);
    expect(behind.headers.get('retry-after')).toBe('17');
    expect(behind.body.error.message).toMatch(/TRIBUTARY_QUEUE_MAX_AGE_SECONDS/);
    await fx.db.pool.query(`update job_runs set status = 'succeeded', finished_at = now() where id = $1`, [old.body.id]);
    expect((await post(undefined, { kind: 'system.check' })).status).toBe(202);
  });
});

describe('an abandoned POST', () => {
  it('a body cut off by the client (Node\'s "aborted") is a 400, creates no job and logs no error', async () => {
    const r0 = await runs();
    const errors = vi.spyOn(console, 'error');
    try {
      // What Node hands a handler when the client disconnects mid-body: the stream errors with "aborted" (ECONNRESET).
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(new TextEncoder().encode('{"kind":"system.ch'));
          setTimeout(() => c.error(Object.assign(new Error('aborted'), { code: 'ECONNRESET' })), 10);
        },
      });
      const r = new Request(BASE + '/api/v1/jobs', {
        method: 'POST', body, duplex: 'half',
        headers: { authorization: `Bearer ${tok.operator}`, 'content-type': 'application/json', 'Idempotency-Key': 'k-aborted' },
      } as RequestInit);
      const res = await call(jobs.POST, r);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'bad_request', field: 'body' });
      expect(errors).not.toHaveBeenCalled();
    } finally {
      errors.mockRestore();
    }
    expect(await runs()).toBe(r0);
    // The key was not used up by the abandoned request: the client's retry creates the job.
    const retry = await post('k-aborted', { kind: 'system.check' });
    expect(retry.status).toBe(202);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
  });
});

describe('the API reference', () => {
  it('documents Idempotency-Key, the replay header, 422 and 429 with Retry-After on the enqueueing routes, and only there', () => {
    const doc = buildOpenApi({ routes: apiRoutes, jobs: jobRegistry, version: 'test' }) as { paths: Record<string, Record<string, { parameters: { name: string; in: string }[]; responses: Record<string, { headers?: Record<string, unknown> }> }>> };
    const enqueueing = ['/api/v1/jobs', '/api/v1/pipelines/{id}/run', '/api/v1/flows/{id}/run', '/api/v1/cdc/{branch}/start'];
    for (const path of enqueueing) {
      const op = doc.paths[path].post;
      expect(op.parameters.filter((p) => p.in === 'header').map((p) => p.name), path).toEqual(['Idempotency-Key']);
      expect(Object.keys(op.responses['202'].headers ?? {}), path).toContain('Idempotent-Replayed');
      expect(Object.keys(op.responses['429'].headers ?? {}), path).toContain('Retry-After');
      expect(op.responses['422'], path).toBeDefined();
    }
    const others = Object.entries(doc.paths).flatMap(([path, item]) => Object.values(item).map((op) => ({ path, op })))
      .filter(({ path, op }) => !enqueueing.includes(path) && op.parameters.some((p) => p.name === 'Idempotency-Key'));
    expect(others.map((o) => o.path)).toEqual([]);
  });
});
