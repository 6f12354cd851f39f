// Issue #20 (4): roles follow the work, not the wrapper. An operator may not
// change, clone, run (directly, through `pipelines.run`, a flow node, a flow
// run or a retry) a pipeline whose kind is admin-only (mail.test); every
// refusal and every change of a pipeline or flow leaves an audit row.
// Route handlers with bearer tokens against a real migrated Postgres.
import { describe, expect, it } from 'vitest';
import { listAuditEvents } from '@/lib/audit';
import { callRoute } from '../test-call';
import * as pipelines from './route';
import * as pipeline from './[id]/route';
import * as pipelineRun from './[id]/run/route';
import * as pipelineClone from './[id]/clone/route';
import * as jobs from '../jobs/route';
import * as jobRetry from '../jobs/[id]/retry/route';
import * as flows from '../flows/route';
import * as flow from '../flows/[id]/route';
import * as flowRun from '../flows/[id]/run/route';
import * as flowPause from '../flows/[id]/pause/route';
import * as flowRunRetry from '../flows/runs/[runId]/retry/route';
import { useRouteServer } from '../test-server';

const MAIL = { kind: 'mail.test', params: { connection: 'mail', to: 'ops@roles.test' } };
const fx = useRouteServer({
  name: 'work-roles', queue: true, roles: ['admin', 'operator'],
  seed: async ({ tok }) => {
    const made = await callRoute(pipelines.POST, 'POST', '/api/v1/pipelines', { token: tok.admin, body: { name: 'mailer', ...MAIL } });
    expect(made.status).toBe(201);
  },
});
const tok = fx.tok;

const audits = (action: string) => listAuditEvents(fx.db.pool, { action });
const stored = async (name: string) => (await fx.db.pool.query('select kind, params, description from pipelines where name = $1', [name])).rows[0];

describe('a pipeline of an admin-only kind', () => {
  it('an operator may not save one, nor wrap one in pipelines.run', async () => {
    const r = await callRoute(pipelines.POST, 'POST', '/api/v1/pipelines', { token: tok.operator, body: { name: 'mine', ...MAIL } });
    expect(r.status).toBe(403);
    const w = await callRoute(pipelines.POST, 'POST', '/api/v1/pipelines', { token: tok.operator, body: { name: 'wrap', kind: 'pipelines.run', params: { pipeline: 'mailer' } } });
    expect(w.status).toBe(403);
    expect(w.body.error.message).toContain('admin');
    expect(await stored('wrap')).toBeUndefined();
  });

  it('an operator PATCH without `kind` (params, description, kind) → 403, nothing changed, and the refusal audited', async () => {
    const before = await stored('mailer');
    for (const body of [{ params: { connection: 'mail', to: 'attacker@evil.test' } }, { description: 'mine now' }, { kind: 'system.check', params: {} }]) {
      const r = await callRoute(pipeline.PATCH, 'PATCH', '/api/v1/pipelines/mailer', { token: tok.operator, body, params: { id: 'mailer' } });
      expect(r.status, JSON.stringify(body)).toBe(403);
      expect(r.body.error.code).toBe('forbidden');
    }
    expect(await stored('mailer')).toEqual(before);
    const denied = await audits('pipeline.update.denied');
    expect(denied).toHaveLength(3);
    expect(denied[0]).toMatchObject({ actor: 'token:olga/t', target: 'pipeline:mailer', after: { needs: 'admin', role: 'operator' } });
  });

  it('an admin PATCH works and is audited with before and after', async () => {
    const r = await callRoute(pipeline.PATCH, 'PATCH', '/api/v1/pipelines/mailer', { token: tok.admin, body: { description: 'alerts' }, params: { id: 'mailer' } });
    expect(r.status).toBe(200);
    const [ev] = await audits('pipeline.update');
    expect(ev).toMatchObject({ actor: 'token:root/t', target: 'pipeline:mailer', before: { description: '' }, after: { description: 'alerts', kind: 'mail.test' } });
    expect((await audits('pipeline.create'))[0]).toMatchObject({ target: 'pipeline:mailer', after: { kind: 'mail.test' } });
  });

  it('an operator may not run it: /run, POST /jobs pipelines.run, clone, delete', async () => {
    const run = await callRoute(pipelineRun.POST, 'POST', '/api/v1/pipelines/mailer/run', { token: tok.operator, params: { id: 'mailer' } });
    expect(run.status).toBe(403);
    const job = await callRoute(jobs.POST, 'POST', '/api/v1/jobs', { token: tok.operator, body: { kind: 'pipelines.run', params: { pipeline: 'mailer' } } });
    expect(job.status).toBe(403);
    expect(job.body.error.message).toMatch(/pipelines\.run \(pipeline 'mailer'\) needs the admin role/);
    const clone = await callRoute(pipelineClone.POST, 'POST', '/api/v1/pipelines/mailer/clone', { token: tok.operator, body: { name: 'mailer2' }, params: { id: 'mailer' } });
    expect(clone.status).toBe(403);
    expect(await stored('mailer2')).toBeUndefined();
    const del = await callRoute(pipeline.DELETE, 'DELETE', '/api/v1/pipelines/mailer', { token: tok.operator, params: { id: 'mailer' } });
    expect(del.status).toBe(403);
    expect((await fx.db.pool.query(`select count(*)::int as n from job_runs`)).rows[0].n).toBe(0);
    expect(await audits('job.start.denied')).toHaveLength(1);
    expect(await audits('pipeline.clone.denied')).toHaveLength(1);
    // An admin may.
    const ok = await callRoute(pipelineClone.POST, 'POST', '/api/v1/pipelines/mailer/clone', { token: tok.admin, body: { name: 'mailer2' }, params: { id: 'mailer' } });
    expect(ok.status).toBe(201);
    expect((await audits('pipeline.clone'))[0]).toMatchObject({ target: 'pipeline:mailer2' });
  });

  it('an operator may not retry a pipelines.run or mail.test run an admin started', async () => {
    const a = await callRoute(jobs.POST, 'POST', '/api/v1/jobs', { token: tok.admin, body: { kind: 'pipelines.run', params: { pipeline: 'mailer' } } });
    expect(a.status).toBe(202);
    const m = await callRoute(jobs.POST, 'POST', '/api/v1/jobs', { token: tok.admin, body: MAIL });
    expect(m.status).toBe(202);
    // No worker here: end them as a worker would have.
    await fx.db.pool.query(`update job_runs set status = 'failed', finished_at = now() where id = any($1::uuid[])`, [[a.body.id, m.body.id]]);
    for (const id of [a.body.id, m.body.id]) {
      const r = await callRoute(jobRetry.POST, 'POST', `/api/v1/jobs/${id}/retry`, { token: tok.operator, params: { id } });
      expect(r.status).toBe(403);
    }
    expect(await audits('job.retry.denied')).toHaveLength(2);
    const r = await callRoute(jobRetry.POST, 'POST', `/api/v1/jobs/${a.body.id}/retry`, { token: tok.admin, params: { id: a.body.id } });
    expect(r.status).toBe(202);
  });
  it('wrappers are followed through nesting: pipelines.run of a pipeline that runs the admin pipeline', async () => {
    const w = await callRoute(pipelines.POST, 'POST', '/api/v1/pipelines', { token: tok.admin, body: { name: 'wrap1', kind: 'pipelines.run', params: { pipeline: 'mailer' } } });
    expect(w.status).toBe(201);
    expect((await callRoute(jobs.POST, 'POST', '/api/v1/jobs', { token: tok.operator, body: { kind: 'pipelines.run', params: { pipeline: 'wrap1' } } })).status).toBe(403);
    expect((await callRoute(pipelineRun.POST, 'POST', '/api/v1/pipelines/wrap1/run', { token: tok.operator, params: { id: 'wrap1' } })).status).toBe(403);
  });
});

describe('a flow has the highest role of its nodes', () => {
  it('an operator may not save a flow with a node running the admin pipeline, by reference or through pipelines.run', async () => {
    for (const node of [{ id: 'a', pipeline: 'mailer' }, { id: 'a', kind: 'pipelines.run', params: { pipeline: 'mailer' } }, { id: 'a', ...MAIL }]) {
      const r = await callRoute(flows.POST, 'POST', '/api/v1/flows', { token: tok.operator, body: { name: 'sneaky', nodes: [node] } });
      expect(r.status, JSON.stringify(node)).toBe(403);
    }
    expect((await fx.db.pool.query(`select count(*)::int as n from flows`)).rows[0].n).toBe(0);
    expect(await audits('flow.create.denied')).toHaveLength(3);
  });

  it("an operator may not change, pause, run or retry an admin's flow, nor run flows.run of it", async () => {
    const made = await callRoute(flows.POST, 'POST', '/api/v1/flows', { token: tok.admin, body: { name: 'alerts', nodes: [{ id: 'a', pipeline: 'mailer' }] } });
    expect(made.status).toBe(201);
    expect((await audits('flow.create'))[0]).toMatchObject({ actor: 'token:root/t', target: 'flow:alerts' });
    const patch = await callRoute(flow.PATCH, 'PATCH', '/api/v1/flows/alerts', { token: tok.operator, body: { description: 'x' }, params: { id: 'alerts' } });
    expect(patch.status).toBe(403);
    expect((await callRoute(flowPause.POST, 'POST', '/api/v1/flows/alerts/pause', { token: tok.operator, params: { id: 'alerts' } })).status).toBe(403);
    expect((await callRoute(flowRun.POST, 'POST', '/api/v1/flows/alerts/run', { token: tok.operator, params: { id: 'alerts' } })).status).toBe(403);
    expect((await callRoute(jobs.POST, 'POST', '/api/v1/jobs', { token: tok.operator, body: { kind: 'flows.run', params: { flow: 'alerts' } } })).status).toBe(403);
    const run = await callRoute(flowRun.POST, 'POST', '/api/v1/flows/alerts/run', { token: tok.admin, params: { id: 'alerts' } });
    expect(run.status).toBe(202);
    await fx.db.pool.query(`update flow_runs set status = 'failed', finished_at = now() where id = $1`, [run.body.id]);
    await fx.db.pool.query(`update flow_run_nodes set status = 'failed' where flow_run_id = $1`, [run.body.id]);
    const retry = await callRoute(flowRunRetry.POST, 'POST', `/api/v1/flows/runs/${run.body.id}/retry`, { token: tok.operator, params: { runId: run.body.id } });
    expect(retry.status).toBe(403);
    expect(await audits('flow_run.retry.denied')).toHaveLength(1);
    const ok = await callRoute(flow.PATCH, 'PATCH', '/api/v1/flows/alerts', { token: tok.admin, body: { description: 'mail' }, params: { id: 'alerts' } });
    expect(ok.status).toBe(200);
    expect((await audits('flow.update'))[0]).toMatchObject({ target: 'flow:alerts', before: { description: '' }, after: { description: 'mail' } });
  });

  it("the check happens when the flow runs: a pipeline turned admin-only after the flow was saved stops the operator", async () => {
    const p = await callRoute(pipelines.POST, 'POST', '/api/v1/pipelines', { token: tok.operator, body: { name: 'probe', kind: 'system.check', params: {} } });
    expect(p.status).toBe(201);
    const f = await callRoute(flows.POST, 'POST', '/api/v1/flows', { token: tok.operator, body: { name: 'probes', nodes: [{ id: 'p', pipeline: 'probe' }] } });
    expect(f.status).toBe(201);
    expect((await callRoute(flowRun.POST, 'POST', '/api/v1/flows/probes/run', { token: tok.operator, params: { id: 'probes' } })).status).toBe(202);
    expect((await callRoute(pipeline.PATCH, 'PATCH', '/api/v1/pipelines/probe', { token: tok.admin, body: MAIL, params: { id: 'probe' } })).status).toBe(200);
    expect((await callRoute(flowRun.POST, 'POST', '/api/v1/flows/probes/run', { token: tok.operator, params: { id: 'probes' } })).status).toBe(403);
    expect((await callRoute(pipelineRun.POST, 'POST', '/api/v1/pipelines/probe/run', { token: tok.operator, params: { id: 'probe' } })).status).toBe(403);
  });
});

describe('an inline tables.json (tablesJson) is an admin\'s', () => {
  // found by an attack: an operator's etl.run with a subquery entry ran any SELECT at every branch with
  // its stored credentials (the power PUT /api/v1/tables keeps for admins), and a viewer read the result
  const SUB = { table: '(SELECT 1 AS id, current_user AS u)', name: 'who', unique_key: 'id' };
  const ETL = { kind: 'etl.run', params: { mode: 'INITIAL', namespace: 'pwn', tablesJson: [SUB] } };
  it('an operator may not start, save or put in a flow such a job; an admin may start it', async () => {
    const job = await callRoute(jobs.POST, 'POST', '/api/v1/jobs', { token: tok.operator, body: ETL });
    expect(job.status).toBe(403);
    expect(job.body.error.message).toMatch(/starting etl\.run needs the admin role; you are operator/);
    const dq = await callRoute(jobs.POST, 'POST', '/api/v1/jobs', { token: tok.operator, body: { kind: 'dq.run', params: { tablesJson: [{ table: 'PUBLIC.T', unique_key: 'ID' }] } } });
    expect(dq.status).toBe(403);
    const pl = await callRoute(pipelines.POST, 'POST', '/api/v1/pipelines', { token: tok.operator, body: { name: 'pwn', ...ETL } });
    expect(pl.status).toBe(403);
    const fl = await callRoute(flows.POST, 'POST', '/api/v1/flows', { token: tok.operator, body: { name: 'pwn', nodes: [{ id: 'e', ...ETL }] } });
    expect(fl.status).toBe(403);
    expect(await stored('pwn')).toBeUndefined();
    // the configured tables.json (no tablesJson) stays an operator's
    const plain = await callRoute(jobs.POST, 'POST', '/api/v1/jobs', { token: tok.operator, body: { kind: 'etl.run', params: { mode: 'INITIAL', plan: true } } });
    expect(plain.status).not.toBe(403);
    const admin = await callRoute(jobs.POST, 'POST', '/api/v1/jobs', { token: tok.admin, body: ETL });
    expect(admin.status).toBe(202);
  });
});
