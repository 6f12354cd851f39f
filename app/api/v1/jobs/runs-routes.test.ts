// Retry, the source filter and the tables picker's route, called with Request
// objects against a real migrated Postgres (no worker: runs stay queued until
// the test ends them in SQL).
import path from 'node:path';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as jobs from './route';
import * as job from './[id]/route';
import * as retry from './[id]/retry/route';
import * as tables from '../etl/tables/route';
import { useRouteServer } from '../test-server';

const BASE = 'http://127.0.0.1:8765';
const fx = useRouteServer({
  name: 'runs', queue: true, roles: ['operator', 'viewer'],
  env: (dir) => ({ TRIBUTARY_TABLES_FILE: path.join(dir, 'tables.json') }),
  prepare: async ({ dataDir }) => {
    fs.writeFileSync(path.join(dataDir, 'tables.json'), JSON.stringify([
      { table: 'SALES.ORDERS', unique_key: 'ID', cdc_column: 'UPDATED_AT', category: 'transactions' },
      { table: 'SALES.CUSTOMERS', unique_key: 'ID' },
    ]));
  },
});
const tok = fx.tok;

function req(method: string, url: string, token: string, body?: unknown) {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return new Request(BASE + url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}
async function call(handler: (r: Request, c: { params: Promise<Record<string, string>> }) => Promise<Response>, r: Request, params: Record<string, string> = {}) {
  const res = await handler(r, { params: Promise.resolve(params) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}
const end = (id: string, status = 'failed') => fx.db.pool.query(`update job_runs set status = $2, finished_at = now() where id = $1`, [id, status]);

describe('POST /api/v1/jobs/:id/retry', () => {
  it('queues the same kind and parameters again, audited on both runs', async () => {
    const first = await call(jobs.POST, req('POST', '/api/v1/jobs', tok.operator, { kind: 'system.check', params: { holdSeconds: 7 } }));
    expect(first.status).toBe(202);
    // Still queued: retrying would do the work twice.
    const early = await call(retry.POST, req('POST', `/api/v1/jobs/${first.body.id}/retry`, tok.operator), { id: first.body.id });
    expect(early.status).toBe(409);
    await end(first.body.id);

    const again = await call(retry.POST, req('POST', `/api/v1/jobs/${first.body.id}/retry`, tok.operator), { id: first.body.id });
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ kind: 'system.check', status: 'queued', retryOf: first.body.id });
    expect(again.body.id).not.toBe(first.body.id);
    const run = await call(job.GET, req('GET', `/api/v1/jobs/${again.body.id}`, tok.viewer), { id: again.body.id });
    expect(run.body).toMatchObject({ kind: 'system.check', params: { holdSeconds: 7 }, status: 'queued', source: 'api', createdBy: 'token:olga/t' });
    const audit = await fx.db.pool.query(`select action, target from audit_events where action in ('job.retry', 'job.start') order by id`);
    expect(audit.rows).toEqual([
      { action: 'job.start', target: `job:${first.body.id}` },
      { action: 'job.start', target: `job:${again.body.id}` },
      { action: 'job.retry', target: `job:${first.body.id}` },
    ]);
  });

  it('validates the parameters again: a payload that no longer passes is a 400 and no run', async () => {
    const id = (await fx.db.pool.query(`insert into job_runs (id, kind, params, status) values (gen_random_uuid(), 'system.check', '{"holdSeconds": 99999}', 'failed') returning id`)).rows[0].id;
    const before = Number((await fx.db.pool.query('select count(*) from job_runs')).rows[0].count);
    const r = await call(retry.POST, req('POST', `/api/v1/jobs/${id}/retry`, tok.operator), { id });
    expect(r.status).toBe(400);
    expect(r.body.error.field).toBe('params.holdSeconds');
    expect(Number((await fx.db.pool.query('select count(*) from job_runs')).rows[0].count)).toBe(before);
  });

  it('needs the kind\'s role, and answers 404 for an unknown run', async () => {
    const id = (await fx.db.pool.query(`insert into job_runs (id, kind, params, status) values (gen_random_uuid(), 'system.check', '{}', 'succeeded') returning id`)).rows[0].id;
    const viewer = await call(retry.POST, req('POST', `/api/v1/jobs/${id}/retry`, tok.viewer), { id });
    expect(viewer.status).toBe(403);
    expect(viewer.body.error.message).toMatch(/needs the operator role/);
    const missing = '00000000-0000-4000-8000-000000000000';
    expect((await call(retry.POST, req('POST', `/api/v1/jobs/${missing}/retry`, tok.operator), { id: missing })).status).toBe(404);
  });
});

describe('GET /api/v1/jobs?source=', () => {
  it('lists the runs of one source', async () => {
    await fx.db.pool.query(`insert into job_runs (id, kind, params, status, source, created_by) values (gen_random_uuid(), 'etl.run', '{"mode":"INITIAL"}', 'succeeded', 'cli', 'cli')`);
    const cli = await call(jobs.GET, req('GET', '/api/v1/jobs?source=cli', tok.viewer));
    expect(cli.status).toBe(200);
    expect(cli.body.runs.map((r: { source: string; kind: string }) => [r.source, r.kind])).toEqual([['cli', 'etl.run']]);
    const bad = await call(jobs.GET, req('GET', '/api/v1/jobs?source=ftp', tok.viewer));
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe('query.source');
  });
});

describe('GET /api/v1/etl/tables', () => {
  it('lists the lake tables of tables.json', async () => {
    const r = await call(tables.GET, req('GET', '/api/v1/etl/tables', tok.viewer));
    expect(r.status).toBe(200);
    expect(r.body.error).toBeUndefined();
    expect(r.body.tables).toEqual([
      { lakeName: 'orders', source: 'SALES.ORDERS', category: 'transactions' },
      { lakeName: 'customers', source: 'SALES.CUSTOMERS', category: 'masters' },
    ]);
  });
});

describe('GET /api/v1/etl/tables without a tables.json', () => {
  it('answers an empty list with the reason', async () => {
    // A server started with settings that name a tables.json that is not there.
    await fx.reopen({ TRIBUTARY_TABLES_FILE: path.join(fx.dataDir, 'missing.json') });
    const r = await call(tables.GET, req('GET', '/api/v1/etl/tables', tok.viewer));
    expect(r.status).toBe(200);
    expect(r.body.tables).toEqual([]);
    expect(r.body.error).toMatch(/missing\.json/);
  });
});
