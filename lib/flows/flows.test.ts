// Flows end to end in one process: real Postgres, a real worker running the
// jobs, the executor ticking, and a real SMTP server (npm smtp-server)
// receiving the alert mail. Multi-process scheduling is in scheduler.test.ts.
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { parseEnv } from '../config/env';
import { silentLogger } from '../log';
import type { JobCatalog } from '../jobs';
import { startFlowsStack } from '../testing/flows-stack';
import { createConnection } from '../connections';
import { startTestSmtpServer, type TestSmtpServer } from '../mail/test-smtp-server';
import { createPipeline, clonePipeline, deletePipeline, runPipeline, pipelineHistory, updatePipeline } from '../pipelines';
import {
  cancelFlowRun, createFlow, fireDue, getFlowRun, listFlowRuns, retryFlowRun, startFlowRun,
  updateFlow,
} from './index';
import { waitFor } from '../testing/wait-for';

let catalog: JobCatalog;

let db: TestDatabase;
let flows: Awaited<ReturnType<typeof startFlowsStack>>;
let smtp: TestSmtpServer;
let dataDir: string;
const SECRET = 'flows-test-secret-0123456789';

const finished = (id: string) => waitFor(`run ${id} to finish`, async () => {
  const r = await getFlowRun(db.pool, id);
  return r && ['succeeded', 'failed', 'cancelled'].includes(r.run.status) && r;
});
const count = async (sql: string, args: unknown[] = []) => Number((await db.pool.query(sql, args)).rows[0].n);
const ok = { kind: 'system.check', params: {} };
/** A node that fails at once: etl.run reading a tables file that does not exist. */
/** A node that passes every check at save and fails when it runs: testing a connection whose server is not there. */
const failing = { kind: 'connections.test', params: { name: 'unreachable-db' } };

beforeAll(async () => {
  db = await createTestDatabase();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trb-flows-'));
  const env = parseEnv({ TRIBUTARY_DATA_DIR: dataDir, TRIBUTARY_SECRET: SECRET } as unknown as NodeJS.ProcessEnv);
  smtp = await startTestSmtpServer();
  await createConnection({ pool: db.pool, keys: { secret: SECRET, dataDir } }, {
    name: 'unreachable-db', kind: 'postgres', params: { host: '127.0.0.1', port: 1, database: 'x', user: 'x' },
  });
  await createConnection({ pool: db.pool, keys: { secret: SECRET, dataDir } }, {
    name: 'test-mail', kind: 'smtp', params: { host: '127.0.0.1', port: smtp.port, tls: 'none', from: 'tributary@flows.test' },
  });
  flows = await startFlowsStack({ pool: db.pool, url: db.url, env });
  catalog = flows.catalog;
});

afterAll(async () => {
  await flows?.stop();
  await smtp?.close();
  await db?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('bad input: 400-style validation errors naming the field, nothing saved', () => {
  const base = { name: 'bad', nodes: [{ id: 'a', ...ok }, { id: 'b', kind: 'etl.run', params: { mode: 'INCREMENTAL' } }], edges: [{ from: 'a', to: 'b' }] };
  const cases: [string, unknown, string, RegExp][] = [
    ['bad cron', { ...base, cron: '61 * * * *' }, 'cron', /minute/],
    ['cron with 4 fields', { ...base, cron: '* * * *' }, 'cron', /5 fields/],
    ['unknown zone', { ...base, cron: '0 2 * * *', timezone: 'Europe/Atlantis' }, 'timezone', /unknown time zone/],
    ['unknown node kind', { ...base, nodes: [{ id: 'a', kind: 'nope.nothing' }] , edges: [] }, 'nodes[0].kind', /unknown job kind/],
    ['a table tables.json does not define (checked at save, as POST /jobs does)', { ...base, nodes: [base.nodes[0], { id: 'b', kind: 'etl.run', params: { mode: 'INCREMENTAL', tables: ['NO_SUCH_TABLE'] } }] }, 'nodes[1].params.tables[0]', /unknown table "NO_SUCH_TABLE"/],
    ['a connection that does not exist', { ...base, nodes: [base.nodes[0], { id: 'b', kind: 'connections.test', params: { name: 'ghost' } }] }, 'nodes[1].params.name', /no connection named "ghost"/],
    ['payload failing its schema', { ...base, nodes: [base.nodes[0], { id: 'b', kind: 'etl.run', params: { mode: 'SIDEWAYS' } }] }, 'nodes[1].params.mode', /.+/],
    ['unknown payload key', { ...base, nodes: [base.nodes[0], { id: 'b', kind: 'system.check', params: { bogus: 1 } }] }, 'nodes[1].params.bogus', /.+/],
    ['dangling edge', { ...base, edges: [{ from: 'a', to: 'zz' }] }, 'edges[0].to', /unknown node 'zz'/],
    ['cycle', { ...base, edges: [{ from: 'a', to: 'b' }, { from: 'b', to: 'a' }] }, 'edges', /cycle: a → b → a/],
    ['unknown pipeline', { ...base, nodes: [{ id: 'a', pipeline: 'ghost' }], edges: [] }, 'nodes[0].pipeline', /no pipeline 'ghost'/],
    ['bad recipient', { ...base, alerts: { recipients: ['not-an-address'] } }, 'alerts.recipients[0]', /e-mail/],
    ['non-smtp connection', { ...base, alerts: { connection: 'nope' } }, 'alerts.connection', /no connection/],
  ];
  for (const [what, input, field, msg] of cases) {
    it(what, async () => {
      const e = await createFlow(db.pool, catalog, input).catch((x) => x);
      expect(e).toMatchObject({ code: 'validation', status: 400, field });
      expect(e.message).toMatch(msg);
    });
  }
  it('saved nothing', async () => {
    expect(await count('select count(*) n from flows')).toBe(0);
    const e = await createPipeline(db.pool, catalog, { name: 'p', kind: 'etl.run', params: { mode: 'SIDEWAYS' } }).catch((x) => x);
    expect(e).toMatchObject({ code: 'validation', field: 'params.mode' });
    expect(await count('select count(*) n from pipelines')).toBe(0);
  });
});

describe('pipeline library', () => {
  it('creates, edits, clones, runs with history, and refuses deletion while a flow uses it', async () => {
    const p = await createPipeline(db.pool, catalog, { name: 'check', description: 'probe', tags: ['ops'], kind: 'system.check', params: { holdSeconds: 0 } }, 'user:alice');
    // system.check has no CLI command of its own: the shown line runs the saved pipeline.
    expect(p.command).toBe('tributary pipelines run check');
    await expect(createPipeline(db.pool, catalog, { name: 'check', kind: 'system.check' })).rejects.toMatchObject({ code: 'conflict', field: 'name' });
    await expect(updatePipeline(db.pool, catalog, 'check', { params: { holdSeconds: -1 } })).rejects.toMatchObject({ field: 'params.holdSeconds' });
    // Checked against the configuration at save, as POST /jobs checks it: a pipeline that could never run is not saved.
    await expect(createPipeline(db.pool, catalog, { name: 'ghost-load', kind: 'etl.run', params: { mode: 'INITIAL', tables: ['NO_SUCH_TABLE'] } }))
      .rejects.toMatchObject({ field: 'params.tables[0]', message: expect.stringMatching(/^pipelines: params\.tables\[0\]: unknown table "NO_SUCH_TABLE"/) });
    await expect(updatePipeline(db.pool, catalog, 'check', { kind: 'connections.test', params: { name: 'ghost' } })).rejects.toMatchObject({ field: 'params.name' });
    const c = await clonePipeline(db.pool, catalog, 'check');
    expect(c.name).toBe('check-copy');
    const { runId } = await runPipeline(db.pool, catalog, 'check', 'user:alice');
    const h = await waitFor('pipeline run', async () => { const x = await pipelineHistory(db.pool, catalog, 'check'); return x[0]?.status === 'succeeded' && x; });
    expect(h[0]).toMatchObject({ jobRunId: runId, status: 'succeeded', flowRunId: null });
    // The duration is the job run's own span: pin it in the job table and read it back.
    expect(h[0].durationMs).toBe(Date.parse(h[0].finishedAt!) - Date.parse(h[0].startedAt!));
    await db.pool.query(`update job_runs set started_at = '2030-01-01T10:00:00Z', finished_at = '2030-01-01T10:02:03.456Z' where id = $1`, [runId]);
    expect((await pipelineHistory(db.pool, catalog, 'check'))[0]).toMatchObject({ jobRunId: runId, durationMs: 123_456 });

    await createFlow(db.pool, catalog, { name: 'uses-check', nodes: [{ id: 'x', pipeline: 'check-copy' }] });
    const e = await deletePipeline(db.pool, catalog, 'check-copy').catch((x) => x);
    expect(e).toMatchObject({ code: 'conflict' });
    expect(e.message).toMatch(/used by flow 'uses-check'/);
    expect((await deletePipeline(db.pool, catalog, 'check')).name).toBe('check');
  });
});

describe('executor and alerts', () => {
  it('a failing middle node skips the last and sends exactly one failure mail naming node and error', async () => {
    await createPipeline(db.pool, catalog, { name: 'first', kind: 'system.check', params: {} });
    const f = await createFlow(db.pool, catalog, {
      name: 'three', nodes: [{ id: 'extract', pipeline: 'first' }, { id: 'load', ...failing }, { id: 'report', ...ok }],
      edges: [{ from: 'extract', to: 'load' }, { from: 'load', to: 'report' }],
      alerts: { recipients: ['ops@flows.test'], connection: 'test-mail' },
    });
    const before = smtp.messages.length;
    const run = await startFlowRun(db.pool, f.id, 'user:alice');
    const done = await finished(run.id);
    expect(done.run.status).toBe('failed');
    const byId = Object.fromEntries(done.nodes.map((n) => [n.nodeId, n]));
    expect(byId.extract.status).toBe('succeeded');
    expect(byId.extract.jobRunId).toMatch(/^[0-9a-f-]{36}$/);
    expect(byId.load.status).toBe('failed');
    expect(byId.load.error).toMatch(/unreachable-db is unreachable/);
    expect(byId.report).toMatchObject({ status: 'skipped', error: 'upstream failed (load)', jobRunId: null });
    expect(byId.extract.startedAt && byId.extract.finishedAt).toBeTruthy();
    // The pipeline node shows up in the pipeline's history, linked to the run.
    expect((await pipelineHistory(db.pool, catalog, 'first'))[0]).toMatchObject({ jobRunId: byId.extract.jobRunId, flowRunId: run.id });

    await waitFor('the failure mail', async () => smtp.messages.length > before);
    // More executor passes over the ended run queue nothing more: one mail.send job, ended, and one mail.
    await flows.exec.tick(); await flows.exec.tick();
    await waitFor('every alert job of the run to end', async () =>
      (await db.pool.query(`select status from job_runs where kind = 'mail.send' and params->>'flowRunId' = $1`, [run.id])).rows.every((j) => ['succeeded', 'failed'].includes(j.status)));
    expect(await count(`select count(*) n from job_runs where kind = 'mail.send' and params->>'flowRunId' = $1`, [run.id])).toBe(1);
    const mails = smtp.messages.slice(before);
    expect(mails).toHaveLength(1);
    const m = mails[0];
    expect(m.to).toEqual(['ops@flows.test']);
    expect(m.subject).toBe('[tributary] Flow three failed at node load');
    expect(m.text).toContain('Failed node: load [connections.test]');
    expect(m.text).toMatch(/unreachable-db is unreachable/);
    expect(m.text).toContain(`http://panel.test:8765/flows/${f.id}/runs/${run.id}`);
    expect(m.raw).toMatch(/Content-Type: text\/plain/);
    expect(m.raw).toMatch(/Content-Type: text\/html/);
    const logs = (await getFlowRun(db.pool, run.id))!.logs.map((l) => l.message);
    expect(logs.some((l) => /alert mail sent to ops@flows.test/.test(l))).toBe(true);
  });

  it('sends a success mail when enabled, retrying when the server refuses the first try', async () => {
    const f = await createFlow(db.pool, catalog, {
      name: 'fine', nodes: [{ id: 'a', ...ok }, { id: 'b', ...ok }, { id: 'c', ...ok }], edges: [{ from: 'a', to: 'c' }, { from: 'b', to: 'c' }],
      alerts: { onSuccess: true, recipients: ['team@flows.test'] },
    });
    const before = smtp.messages.length;
    smtp.refuse(1);
    const run = await startFlowRun(db.pool, 'fine');
    const done = await finished(run.id);
    expect(done.run.status).toBe('succeeded');
    expect(done.nodes.map((n) => n.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    // The server has the mail a moment before the sender logs that it went: wait for the log line.
    const sentLine = /alert mail sent to team@flows.test via test-mail \(try 2\)/;
    const logs = await waitFor('the success mail sent and logged', async () => {
      const l = (await getFlowRun(db.pool, run.id))!.logs.map((x) => x.message);
      return smtp.messages.length > before && l.some((x) => sentLine.test(x)) && l;
    }, 120_000);
    expect(smtp.refused()).toBe(1);
    const mails = smtp.messages.slice(before);
    expect(mails).toHaveLength(1);
    expect(mails[0].subject).toBe('[tributary] Flow fine succeeded');
    expect(logs.some((l) => /alert mail try 1 via test-mail failed: .*451/.test(l))).toBe(true);
    expect(logs.some((l) => /alert mail sent to team@flows.test via test-mail \(try 2\)/.test(l))).toBe(true);
    void f;
  });

  it('cancels a run with its running job, then retries it from the cancelled nodes only', async () => {
    const f = await createFlow(db.pool, catalog, {
      name: 'long', nodes: [{ id: 'quick', ...ok }, { id: 'slow', kind: 'system.check', params: { holdSeconds: 120 } }, { id: 'after', ...ok }],
      edges: [{ from: 'quick', to: 'slow' }, { from: 'slow', to: 'after' }],
    });
    const run = await startFlowRun(db.pool, f.id);
    await waitFor('slow to run', async () => (await getFlowRun(db.pool, run.id))!.nodes.find((n) => n.nodeId === 'slow')?.status === 'running');
    await cancelFlowRun(db.pool, run.id, 'user:alice');
    const done = await finished(run.id);
    expect(done.run.status).toBe('cancelled');
    const st = Object.fromEntries(done.nodes.map((n) => [n.nodeId, n.status]));
    expect(st).toEqual({ quick: 'succeeded', slow: 'cancelled', after: 'cancelled' });
    const slowJob = done.nodes.find((n) => n.nodeId === 'slow')!.jobRunId;
    expect((await db.pool.query('select status from job_runs where id = $1', [slowJob])).rows[0].status).toBe('cancelled');

    // Make the retried node quick (the run keeps its snapshot of the params), then retry.
    await db.pool.query(`update flow_run_nodes set params = '{}' where flow_run_id = $1 and node_id = 'slow'`, [run.id]);
    await retryFlowRun(db.pool, run.id, 'user:alice');
    const again = await finished(run.id);
    expect(again.run.status).toBe('succeeded');
    const n = Object.fromEntries(again.nodes.map((x) => [x.nodeId, x]));
    expect(n.quick.attempts).toBe(1); // not re-run
    expect(n.slow.attempts).toBe(2);
    expect(n.after.status).toBe('succeeded');
    await expect(retryFlowRun(db.pool, run.id)).rejects.toMatchObject({ code: 'conflict' });
  });

  it('mails once when a run goes on longer than the set minutes', async () => {
    const f = await createFlow(db.pool, catalog, {
      name: 'slowpoke', nodes: [{ id: 'hold', kind: 'system.check', params: { holdSeconds: 120 } }],
      alerts: { onFailure: false, longRunningMinutes: 1, recipients: ['night@flows.test'] },
    });
    const before = smtp.messages.length;
    const run = await startFlowRun(db.pool, f.id);
    await waitFor('the run to start', async () => (await getFlowRun(db.pool, run.id))!.run.status === 'running');
    // Pretend it started two minutes ago rather than wait for it.
    await db.pool.query(`update flow_runs set started_at = now() - interval '2 minutes' where id = $1`, [run.id]);
    await waitFor('the long-running mail', async () => smtp.messages.length > before, 30_000);
    // Further passes over the still-running run: the alert is not queued again.
    await flows.exec.tick(); await flows.exec.tick();
    expect(await count(`select count(*) n from job_runs where kind = 'mail.send' and params->>'flowRunId' = $1`, [run.id])).toBe(1);
    const mails = smtp.messages.slice(before);
    expect(mails).toHaveLength(1);
    expect(mails[0].subject).toMatch(/^\[tributary\] Flow slowpoke is still running after 2m/);
    await cancelFlowRun(db.pool, run.id);
    await finished(run.id);
    expect(smtp.messages.length).toBe(before + 1); // onFailure off: no mail for the cancel either
  });

  it('a node that can no longer start fails alone, with its reason; its downstream is skipped and the run fails', async () => {
    const f = await createFlow(db.pool, catalog, {
      name: 'unstartable', nodes: [{ id: 'gate', kind: 'system.check', params: { holdSeconds: 3 } }, { id: 'a', ...ok }, { id: 'b', ...ok }, { id: 'side', ...ok }],
      edges: [{ from: 'gate', to: 'a' }, { from: 'a', to: 'b' }], alerts: { onFailure: false },
    });
    const run = await startFlowRun(db.pool, f.id);
    await waitFor('gate to run', async () => (await getFlowRun(db.pool, run.id))!.nodes.find((n) => n.nodeId === 'gate')?.status === 'running');
    // The run's snapshot of a no longer passes its payload schema when its turn comes.
    await db.pool.query(`update flow_run_nodes set params = '{"bogus": 1}' where flow_run_id = $1 and node_id = 'a'`, [run.id]);
    const done = await finished(run.id);
    const n = Object.fromEntries(done.nodes.map((x) => [x.nodeId, x]));
    expect(done.run).toMatchObject({ status: 'failed', error: expect.stringMatching(/^node a failed: could not start: /) });
    expect(n.gate.status).toBe('succeeded');
    expect(n.side.status).toBe('succeeded');
    expect(n.a).toMatchObject({ status: 'failed', jobRunId: null, attempts: 0, error: expect.stringMatching(/^could not start: .*bogus/) });
    expect(n.b).toMatchObject({ status: 'skipped', error: 'upstream failed (a)' });
    expect(done.logs.map((l) => l.message)).toEqual(expect.arrayContaining([expect.stringMatching(/^node a could not start: /), 'run failed']));
    expect(await count(`select count(*) n from job_runs where created_by = 'flow:unstartable/a'`)).toBe(0);
  });

  it('runs independent nodes in parallel up to the flow limit', async () => {
    const nodes = ['a', 'b', 'c', 'd'].map((id) => ({ id, kind: 'system.check', params: { holdSeconds: 2 } }));
    const f = await createFlow(db.pool, catalog, { name: 'wide', nodes, maxParallel: 2 });
    const run = await startFlowRun(db.pool, f.id);
    let maxActive = 0;
    for (;;) {
      const r = (await getFlowRun(db.pool, run.id))!;
      maxActive = Math.max(maxActive, r.nodes.filter((x) => x.status === 'queued' || x.status === 'running').length);
      if (['succeeded', 'failed'].includes(r.run.status)) break;
      await new Promise((res) => setTimeout(res, 100));
    }
    expect(maxActive).toBe(2);
    expect((await getFlowRun(db.pool, run.id))!.run.status).toBe('succeeded');
  });
});

describe('scheduling policies (fires at chosen instants)', () => {
  const at = (s: string) => new Date(`2030-01-01T${s}Z`);
  async function scheduled(name: string, extra: Record<string, unknown>) {
    const f = await createFlow(db.pool, catalog, { name, cron: '* * * * *', timezone: 'Europe/Berlin', nodes: [{ id: 'hold', kind: 'system.check', params: { holdSeconds: 120 } }], ...extra });
    await db.pool.query('update flows set schedule_cursor = $2 where id = $1', [f.id, at('10:00:00')]);
    return f;
  }
  const runsOf = async (flowId: string) => (await listFlowRuns(db.pool, { flowId })).reverse();
  const cancelAll = async (flowId: string) => {
    for (const r of await runsOf(flowId)) if (['queued', 'running'].includes(r.status)) await cancelFlowRun(db.pool, r.id);
  };

  it('overlap skip: a fire while the last run goes is recorded as skipped', async () => {
    const f = await scheduled('ov-skip', { overlap: 'skip' });
    await fireDue(db.pool, silentLogger, at('10:01:00'), 60_000);
    await fireDue(db.pool, silentLogger, at('10:01:00'), 60_000); // the same fire again: nothing new
    const [first] = await runsOf(f.id);
    await waitFor('first run running', async () => (await getFlowRun(db.pool, first.id))!.run.status === 'running');
    await fireDue(db.pool, silentLogger, at('10:02:00'), 60_000);
    const runs = await runsOf(f.id);
    expect(runs.map((r) => [r.scheduledFor, r.status])).toEqual([
      [at('10:01:00').toISOString(), 'running'],
      [at('10:02:00').toISOString(), 'skipped'],
    ]);
    expect(runs[1].error).toMatch(/overlap: skip/);
    await cancelAll(f.id);
  });

  it('overlap queue: one run waits behind the running one, a further fire is skipped', async () => {
    const f = await scheduled('ov-queue', { overlap: 'queue' });
    await fireDue(db.pool, silentLogger, at('10:01:00'), 60_000);
    const [first] = await runsOf(f.id);
    await waitFor('first run running', async () => (await getFlowRun(db.pool, first.id))!.run.status === 'running');
    await fireDue(db.pool, silentLogger, at('10:02:00'), 60_000);
    await fireDue(db.pool, silentLogger, at('10:03:00'), 60_000);
    await flows.exec.tick(); await flows.exec.tick(); // whole executor passes: the queued one must keep waiting
    const runs = await runsOf(f.id);
    expect(runs.map((r) => r.status)).toEqual(['running', 'queued', 'skipped']);
    expect(runs[2].error).toMatch(/already queued/);
    // When the first ends, the queued one starts.
    await cancelFlowRun(db.pool, first.id);
    await waitFor('queued run to start', async () => (await getFlowRun(db.pool, runs[1].id))!.run.status === 'running');
    await cancelAll(f.id);
  });

  it('catch-up skip drops missed fires; catch-up once runs the latest once', async () => {
    const skip = await scheduled('cu-skip', { catchup: 'skip' });
    const once = await scheduled('cu-once', { catchup: 'once' });
    await fireDue(db.pool, silentLogger, at('10:30:30'), 10_000); // 30 fires missed; latest 30 s late
    expect(await runsOf(skip.id)).toEqual([]);
    const r = await runsOf(once.id);
    expect(r.map((x) => x.scheduledFor)).toEqual([at('10:30:00').toISOString()]);
    // Both cursors moved: the next on-time fire runs under either policy.
    await fireDue(db.pool, silentLogger, at('10:31:01'), 10_000);
    expect((await runsOf(skip.id)).map((x) => x.scheduledFor)).toEqual([at('10:31:00').toISOString()]);
    await cancelAll(skip.id); await cancelAll(once.id);
  });

  it('a paused flow does not fire; a schedule change applies from now', async () => {
    const f = await scheduled('paused', {});
    await updateFlow(db.pool, catalog, f.id, { enabled: false });
    await fireDue(db.pool, silentLogger, at('10:05:00'), 60_000);
    expect(await runsOf(f.id)).toEqual([]);
    const g = await updateFlow(db.pool, catalog, f.id, { enabled: true, cron: '0 3 * * *' });
    expect(g).toMatchObject({ timezone: 'Europe/Berlin', overlap: 'skip', maxParallel: 4 });
    expect(g.nextFires[0]).toMatch(/T0[12]:00:00.000Z$/); // 03:00 Berlin is 01:00 or 02:00 UTC
  });
});
