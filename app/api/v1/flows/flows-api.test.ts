// /api/v1/pipelines and /api/v1/flows through their route handlers, with
// bearer tokens, against real Postgres and a real worker: bad input → 400
// naming the field with nothing saved; a flow made and run with a token; a
// test mail through an smtp connection to a real SMTP server.
import { afterAll, describe, expect, it } from 'vitest';
import { silentLogger } from '@/lib/log';
import { startFlowScheduler, type SchedulerHandle } from '@/lib/flows';
import { startTestSmtpServer, type TestSmtpServer } from '@/lib/mail/test-smtp-server';
import * as pipelines from '../pipelines/route';
import * as pipeline from '../pipelines/[id]/route';
import * as pipelineRun from '../pipelines/[id]/run/route';
import * as flows from './route';
import * as flow from './[id]/route';
import * as flowRun from './[id]/run/route';
import * as flowPause from './[id]/pause/route';
import * as validate from './validate/route';
import * as runDetail from './runs/[runId]/route';
import * as connections from '../connections/route';
import * as testMail from '../connections/[id]/test-mail/route';
import * as job from '../jobs/[id]/route';
import { serverDeps } from '@/app/_server/deps';
import { waitFor } from '@/lib/testing/wait-for';
import { useRouteServer } from '../test-server';

const BASE = 'http://127.0.0.1:8765';
let exec: SchedulerHandle;
let smtp: TestSmtpServer;
// A worker (two slots) and a flow scheduler on the server's deps, and a real SMTP server.
const fx = useRouteServer({
  name: 'flows-api',
  seed: async ({ db }) => {
    smtp = await startTestSmtpServer();
    await fx.startWorker({ concurrency: 2 });
    const { jobs, env } = serverDeps();
    exec = startFlowScheduler({ pool: db.pool, catalog: { jobs, env }, url: db.url, logger: silentLogger, tickMs: 200, schedule: false });
  },
});
// Runs before the helper's teardown (after-hooks run in reverse): nothing ticks once the worker stops.
afterAll(async () => {
  await exec?.stop();
  await smtp?.close();
});
const tok = fx.tok;

function req(method: string, url: string, token: string, body?: unknown) {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return new Request(BASE + url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}
type H = (r: Request, c: { params: Promise<Record<string, string>> }) => Promise<Response>;
async function call(h: H, r: Request, params: Record<string, string> = {}) {
  const res = await h(r, { params: Promise.resolve(params) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}
const n = async (t: string) => Number((await fx.db.pool.query(`select count(*) from ${t}`)).rows[0].count);

describe('/api/v1/pipelines', () => {
  it('400 naming the field for a payload failing its kind schema; viewers cannot write', async () => {
    const bad = await call(pipelines.POST, req('POST', '/api/v1/pipelines', tok.operator, { name: 'etl-x', kind: 'etl.run', params: { mode: 'SIDEWAYS' } }));
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'validation', field: 'params.mode' });
    const unknown = await call(pipelines.POST, req('POST', '/api/v1/pipelines', tok.operator, { name: 'x', kind: 'nope.nothing' }));
    expect(unknown.body.error.field).toBe('kind');
    expect((await call(pipelines.POST, req('POST', '/api/v1/pipelines', tok.viewer, { name: 'x', kind: 'system.check' }))).status).toBe(403);
    expect(await n('pipelines')).toBe(0);
  });

  it('saves, shows its command line, and runs it now', async () => {
    const made = await call(pipelines.POST, req('POST', '/api/v1/pipelines', tok.operator, { name: 'probe', kind: 'system.check', tags: ['ops'] }));
    expect(made.status).toBe(201);
    const run = await call(pipelineRun.POST, req('POST', '/api/v1/pipelines/probe/run', tok.operator), { id: 'probe' });
    expect(run.status).toBe(202);
    await waitFor('the job', async () => (await call(job.GET, req('GET', `/api/v1/jobs/${run.body.id}`, tok.viewer), { id: run.body.id })).body.status === 'succeeded');
    const got = await call(pipeline.GET, req('GET', '/api/v1/pipelines/probe', tok.viewer), { id: 'probe' });
    expect(got.body).toMatchObject({ name: 'probe', command: 'tributary pipelines run probe', usedBy: [] });
    expect(got.body.runs[0]).toMatchObject({ jobRunId: run.body.id, status: 'succeeded' });
    expect((await call(pipelines.GET, req('GET', '/api/v1/pipelines?tag=ops', tok.viewer))).body.pipelines).toHaveLength(1);
  });
});

describe('/api/v1/flows', () => {
  const good = { name: 'nightly', nodes: [{ id: 'probe', pipeline: 'probe' }, { id: 'check', kind: 'system.check', params: {} }], edges: [{ from: 'probe', to: 'check' }], cron: '30 2 * * *', timezone: 'Europe/Berlin' };
  const cases: [string, Record<string, unknown>, string][] = [
    ['bad cron', { ...good, cron: '99 2 * * *' }, 'cron'],
    ['unknown zone', { ...good, timezone: 'Nowhere/Land' }, 'timezone'],
    ['unknown node kind', { ...good, nodes: [good.nodes[0], { id: 'check', kind: 'bogus.kind' }] }, 'nodes[1].kind'],
    ['payload failing its schema', { ...good, nodes: [good.nodes[0], { id: 'check', kind: 'etl.run', params: { mode: 'SIDEWAYS' } }] }, 'nodes[1].params.mode'],
    ['dangling edge', { ...good, edges: [{ from: 'probe', to: 'ghost' }] }, 'edges[0].to'],
    ['cycle', { ...good, edges: [{ from: 'probe', to: 'check' }, { from: 'check', to: 'probe' }] }, 'edges'],
  ];
  for (const [what, body, field] of cases) {
    it(`${what} → 400 naming ${field}, nothing saved`, async () => {
      const r = await call(flows.POST, req('POST', '/api/v1/flows', tok.operator, body));
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'validation', field });
      expect(await n('flows')).toBe(0);
    });
  }

  it('an operator cannot put an admin-only job kind in a flow (403), an admin can', async () => {
    const body = { name: 'mailer', nodes: [{ id: 'm', kind: 'mail.test', params: { connection: 'x', to: 'a@b.test' } }] };
    expect((await call(flows.POST, req('POST', '/api/v1/flows', tok.operator, body))).status).toBe(403);
    expect(await n('flows')).toBe(0);
    const ok = await call(flows.POST, req('POST', '/api/v1/flows', tok.admin, body));
    expect(ok.status).toBe(201);
    expect((await call(flow.DELETE, req('DELETE', '/api/v1/flows/mailer', tok.admin), { id: 'mailer' })).status).toBe(200);
  });

  it('validates without saving, with next fires in the zone', async () => {
    const r = await call(validate.POST, req('POST', '/api/v1/flows/validate', tok.viewer, good));
    expect(r.status).toBe(200);
    expect(r.body.description).toMatch(/02:30/);
    expect(r.body.nextFires).toHaveLength(5);
    expect(r.body.nextFires[0].local).toMatch(/ 02:30 \(GMT\+[12]\)$/);
    expect(await n('flows')).toBe(0);
  });

  it('makes, pauses and runs a flow with a token, and the delete of its pipeline is refused', async () => {
    const made = await call(flows.POST, req('POST', '/api/v1/flows', tok.operator, good));
    expect(made.status).toBe(201);
    expect(made.body.nodes[0]).toMatchObject({ id: 'probe', pipelineName: 'probe' });
    expect(made.body.nextFires).toHaveLength(5);
    const paused = await call(flowPause.POST, req('POST', '/api/v1/flows/nightly/pause', tok.operator), { id: 'nightly' });
    expect(paused.body).toMatchObject({ enabled: false, nextFires: [] });
    const bad = await call(flow.PATCH, req('PATCH', '/api/v1/flows/nightly', tok.operator, { cron: 'every day' }), { id: 'nightly' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe('cron');
    expect((await call(flow.GET, req('GET', '/api/v1/flows/nightly', tok.viewer), { id: 'nightly' })).body.cron).toBe('30 2 * * *');

    const del = await call(pipeline.DELETE, req('DELETE', '/api/v1/pipelines/probe', tok.operator), { id: 'probe' });
    expect(del.status).toBe(409);
    expect(del.body.error.message).toMatch(/'nightly'/);

    const started = await call(flowRun.POST, req('POST', '/api/v1/flows/nightly/run', tok.operator), { id: 'nightly' });
    expect(started.status).toBe(202);
    const done = await waitFor('the flow run', async () => {
      const r = await call(runDetail.GET, req('GET', `/api/v1/flows/runs/${started.body.id}`, tok.viewer), { runId: started.body.id });
      return r.body.run.status === 'succeeded' && r.body;
    });
    expect(done.nodes.map((x: { nodeId: string; status: string }) => [x.nodeId, x.status])).toEqual([['check', 'succeeded'], ['probe', 'succeeded']]);
    const list = await call(flows.GET, req('GET', '/api/v1/flows', tok.viewer));
    expect(list.body.flows[0].lastRun).toMatchObject({ id: started.body.id, status: 'succeeded' });
  });
});

describe('smtp connections', () => {
  it('refuses a bad TLS mode, and sends a test mail', async () => {
    const bad = await call(connections.POST, req('POST', '/api/v1/connections', tok.admin, { name: 'mail', kind: 'smtp', params: { host: '127.0.0.1', port: smtp.port, tls: 'ssl', from: 'a@b.test' } }));
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe('params.tls');
    const made = await call(connections.POST, req('POST', '/api/v1/connections', tok.admin, {
      name: 'mail', kind: 'smtp', params: { host: '127.0.0.1', port: smtp.port, tls: 'none', user: 'robot', from: 'tributary@api.test' }, secrets: { password: 'hunter22' },
    }));
    expect(made.status).toBe(201);
    expect(JSON.stringify(made.body)).not.toContain('hunter22');
    const sent = await call(testMail.POST, req('POST', '/api/v1/connections/mail/test-mail', tok.admin, { to: 'me@api.test' }), { id: 'mail' });
    expect(sent.status).toBe(202);
    await waitFor('the test mail', async () => smtp.messages.length === 1);
    expect(smtp.messages[0]).toMatchObject({ from: 'tributary@api.test', to: ['me@api.test'], subject: '[tributary] test mail' });
    expect((await call(testMail.POST, req('POST', '/api/v1/connections/mail/test-mail', tok.operator, { to: 'me@api.test' }), { id: 'mail' })).status).toBe(403);
  });
});
