import type pg from 'pg';
import { toError } from '../errors';
import { requestCancel } from '../jobs/runs';
import { enqueueJobInTransaction, enqueuePipelineJob } from '../pipelines';
import type { Logger } from '../log';
import { topologicalOrder } from './dag';
import { nodeOutcome } from './outcome';
import { buildAlertMail, type AlertEvent, type AlertFacts } from './alert-mail';
import { alertWebhookFacts } from './alert-webhook';
import { logFlowRun } from './run-log';
import type { LineageEmitter, LineageRunState } from '../lineage';
import { flowJobName } from '../jobs/lineage-parent';

/**
 * The DAG executor. It keeps no state of its own: every call reads a run's
 * nodes and their job runs from the database, moves them on, and commits,
 * all under a row lock taken with SKIP LOCKED. So any worker can advance
 * any run, two never advance the same one at once, and a worker killed
 * mid-way loses nothing (its transaction rolls back; the next tick redoes it).
 */
export interface ExecutorOptions {
  pool: pg.Pool;
  logger: Logger;
  /** Base URL for links in alert mail. (Default: http://127.0.0.1:8765) */
  publicUrl?: string;
  /** OpenLineage: a FLOW run's START when it starts and COMPLETE / FAIL / ABORT when it closes. (Default: none) */
  lineage?: LineageEmitter | null;
}

const TERMINAL = new Set(['succeeded', 'failed', 'skipped', 'cancelled']);

/** Advance every queued or running flow run once. @returns how many runs were looked at */
export async function advanceFlowRuns(o: ExecutorOptions): Promise<number> {
  const r = await o.pool.query(`select id from flow_runs where status in ('queued', 'running') order by created_at limit 200`);
  for (const row of r.rows) {
    try {
      await advanceFlowRun(o, row.id);
    } catch (e) {
      o.logger.warn('flows: could not advance a run; next tick tries again', { flowRunId: row.id, error: toError(e).message });
    }
  }
  return r.rowCount ?? 0;
}

/** Advance one run: sync node states from job runs, skip downstream of failures, start ready nodes, close the run. */
export async function advanceFlowRun(o: ExecutorOptions, runId: string): Promise<void> {
  const client = await o.pool.connect();
  let cancelJobs: string[] = [];
  // Sent once the transaction commits: a rolled-back tick redoes (and reports) the change.
  const lineage: LineageRunState[] = [];
  try {
    await client.query('begin');
    const rr = await client.query(`select * from flow_runs where id = $1 and status in ('queued', 'running') for update skip locked`, [runId]);
    if (!rr.rowCount) { await client.query('commit'); return; }
    const run = rr.rows[0];
    const log = (level: 'info' | 'warn' | 'error', m: string) => logFlowRun(client, runId, level, m);

    if (run.status === 'queued') {
      if (!run.cancel_requested) {
        // One run of a flow at a time: lock the flow so two workers starting two queued runs serialise here.
        await client.query('select 1 from flows where id = $1 for update', [run.flow_id]);
        const other = await client.query(`select 1 from flow_runs where flow_id = $1 and status = 'running' and id <> $2 limit 1`, [run.flow_id, runId]);
        if (other.rowCount) { await client.query('commit'); return; }
        const older = await client.query(`select 1 from flow_runs where flow_id = $1 and status = 'queued' and created_at < $2 limit 1`, [run.flow_id, run.created_at]);
        if (older.rowCount) { await client.query('commit'); return; }
      }
      await client.query(`update flow_runs set status = 'running', started_at = coalesce(started_at, now()) where id = $1`, [runId]);
      run.status = 'running';
      if (!run.started_at) run.started_at = new Date();
      lineage.push({ eventType: 'START', runId, jobName: flowJobName(run.flow_name), jobType: 'FLOW' });
    }

    const nr = await client.query(
      `select n.*, j.status as job_status, j.error as job_error, j.result as job_result, j.started_at as job_started_at, j.finished_at as job_finished_at
         from flow_run_nodes n left join job_runs j on j.id = n.job_run_id
        where n.flow_run_id = $1 for update of n`, [runId]);
    const nodes = new Map<string, Record<string, any>>(nr.rows.map((n) => [n.node_id, n]));
    const setNode = async (id: string, status: string, fields: { error?: string | null; jobRunId?: string; started?: Date | null; finished?: Date | null } = {}) => {
      const n = nodes.get(id)!;
      n.status = status;
      if (fields.error) n.error = fields.error;
      if (fields.jobRunId) n.job_run_id = fields.jobRunId;
      await client.query(
        `update flow_run_nodes set status = $3, error = coalesce($4, error),
            job_run_id = coalesce($5, job_run_id), attempts = attempts + case when $5::uuid is null then 0 else 1 end,
            started_at = coalesce($6, started_at), finished_at = coalesce($7, finished_at)
          where flow_run_id = $1 and node_id = $2`,
        [runId, id, status, fields.error ?? null, fields.jobRunId ?? null, fields.started ?? null, fields.finished ?? null]);
    };

    // 1. Node states from their job runs.
    for (const n of nodes.values()) {
      if (n.status !== 'queued' && n.status !== 'running') continue;
      if (!n.job_status) {
        await setNode(n.node_id, 'failed', { error: 'its job run no longer exists', finished: new Date() });
        continue;
      }
      const out = nodeOutcome(n.job_status, n.job_result, n.job_error);
      if (out.status === n.status) continue;
      if (out.status === 'running') await setNode(n.node_id, 'running', { started: n.job_started_at });
      else if (out.status !== 'queued') {
        await setNode(n.node_id, out.status, { error: out.error, started: n.job_started_at, finished: n.job_finished_at ?? new Date() });
        if (out.status === 'failed') await log('error', `node ${n.node_id} failed: ${(out.error ?? '').slice(0, 500)}`);
        else await log('info', `node ${n.node_id} ${out.status}`);
      }
    }

    const ids = [...nodes.keys()];
    const edges = [...nodes.values()].flatMap((n) => (n.parents as string[]).map((p) => ({ from: p, to: n.node_id })));
    const order = topologicalOrder(ids, edges);

    // 2. Downstream of a failure is skipped; of a cancellation, cancelled (in order, so it propagates in one pass).
    for (const id of order) {
      const n = nodes.get(id)!;
      if (n.status !== 'pending') continue;
      const bad = (n.parents as string[]).map((p) => nodes.get(p)!).find((p) => p.status === 'failed' || p.status === 'skipped' || p.status === 'cancelled');
      if (!bad) continue;
      if (bad.status === 'cancelled') await setNode(id, 'cancelled', { error: `upstream cancelled (${bad.node_id})`, finished: new Date() });
      else await setNode(id, 'skipped', { error: `upstream failed (${bad.status === 'failed' ? bad.node_id : (bad.error ?? bad.node_id).replace(/^upstream failed \((.*)\)$/, '$1')})`, finished: new Date() });
    }

    // 3. Cancel: nothing new starts; running jobs are asked to stop after commit.
    if (run.cancel_requested) {
      for (const n of nodes.values()) if (n.status === 'pending') await setNode(n.node_id, 'cancelled', { error: 'cancelled', finished: new Date() });
      cancelJobs = [...nodes.values()].filter((n) => (n.status === 'queued' || n.status === 'running') && n.job_run_id).map((n) => n.job_run_id);
    }

    // 4. Start ready nodes, up to the run's parallelism.
    const active = () => [...nodes.values()].filter((n) => n.status === 'queued' || n.status === 'running').length;
    for (const id of order) {
      if (run.cancel_requested || active() >= run.max_parallel) break;
      const n = nodes.get(id)!;
      if (n.status !== 'pending') continue;
      if (!(n.parents as string[]).every((p) => nodes.get(p)!.status === 'succeeded')) continue;
      const createdBy = `flow:${run.flow_name}/${id}`;
      try {
        // A savepoint: a node whose spec no longer validates fails alone, the run's other writes stay.
        await client.query('savepoint node_start');
        const job = n.pipeline_id
          ? await enqueuePipelineJob(client, { id: n.pipeline_id, kind: n.kind, params: n.params }, { createdBy, flowRunId: runId })
          : await enqueueJobInTransaction(client, { kind: n.kind, params: n.params, createdBy });
        await client.query('release savepoint node_start');
        await setNode(id, 'queued', { jobRunId: job.runId });
        await log('info', `node ${id} queued as ${n.kind} job ${job.runId}`);
      } catch (e) {
        await client.query('rollback to savepoint node_start');
        const msg = toError(e).message;
        await setNode(id, 'failed', { error: `could not start: ${msg}`, finished: new Date() });
        await log('error', `node ${id} could not start: ${msg}`);
      }
    }
    // A start failure above may have made more nodes skippable: the next tick handles them.

    // 5. Close the run once every node has ended.
    const all = [...nodes.values()];
    const flow = (await client.query('select * from flows where id = $1', [run.flow_id])).rows[0] ?? null;
    if (all.every((n) => TERMINAL.has(n.status))) {
      const failed = order.map((id) => nodes.get(id)!).find((n) => n.status === 'failed');
      const status = failed ? 'failed' : all.some((n) => n.status === 'cancelled') ? 'cancelled' : 'succeeded';
      const error = failed ? `node ${failed.node_id} failed: ${failed.error ?? ''}`.slice(0, 2000) : status === 'cancelled' ? 'cancelled' : null;
      const fin = await client.query(`update flow_runs set status = $2, error = $3, finished_at = now() where id = $1 returning *`, [runId, status, error]);
      await log(status === 'succeeded' ? 'info' : status === 'failed' ? 'error' : 'warn', `run ${status}`);
      lineage.push({ eventType: status === 'succeeded' ? 'COMPLETE' : status === 'failed' ? 'FAIL' : 'ABORT', runId, jobName: flowJobName(run.flow_name), jobType: 'FLOW', error: error ?? undefined });
      const ev: AlertEvent | null = status === 'failed' && flow?.alert_on_failure ? 'failure' : status === 'succeeded' && flow?.alert_on_success ? 'success' : null;
      if (ev && flow) await queueAlert(client, o, flow, fin.rows[0], [...nodes.values()], ev, failed ?? null);
    } else if (flow?.alert_long_running_minutes && !run.long_alert_sent && run.started_at
               && Date.now() - new Date(run.started_at).getTime() > flow.alert_long_running_minutes * 60_000) {
      await client.query('update flow_runs set long_alert_sent = true where id = $1', [runId]);
      await queueAlert(client, o, flow, run, all, 'long_running', null);
    }
    await client.query('commit');
  } catch (e) {
    await client.query('rollback').catch(() => {}); // the original error is what matters; a failed ROLLBACK means the connection is already gone
    throw e;
  } finally {
    client.release();
  }
  for (const s of lineage) o.lineage?.emit(s);
  for (const j of cancelJobs) await requestCancel(o.pool, j).catch(() => {}); // a job that already ended cannot be cancelled: nothing to do
}

/**
 * Queue the alert — one mail.send job for the mail recipients and one
 * webhook.send job per webhook connection — in the run's closing
 * transaction: the run ends and its alerts are queued together, so a failure
 * alerts exactly once however many workers tick.
 */
async function queueAlert(client: pg.PoolClient, o: ExecutorOptions, flow: Record<string, any>, run: Record<string, any>, nodes: Record<string, any>[], event: AlertEvent, failed: Record<string, any> | null): Promise<void> {
  const to: string[] = flow.alert_recipients ?? [];
  const hooks: string[] = flow.alert_webhooks ?? [];
  if (!to.length && !hooks.length) {
    await logFlowRun(client, run.id, 'warn', `no alert recipients or webhooks set: no ${event} alert`);
    return;
  }
  const facts: AlertFacts = {
    event, flowName: flow.name, flowId: flow.id, runId: run.id, publicUrl: o.publicUrl ?? 'http://127.0.0.1:8765',
    startedAt: run.started_at ? new Date(run.started_at) : null, endedAt: run.finished_at ? new Date(run.finished_at) : new Date(),
    scheduledFor: run.scheduled_for ? new Date(run.scheduled_for) : null,
    failedNode: failed ? { id: failed.node_id, label: failed.label, kind: failed.kind, error: failed.error } : null,
    nodes: nodes.map((n) => ({ id: n.node_id, label: n.label, status: n.status })).sort((a, b) => a.id.localeCompare(b.id)),
  };
  if (to.length) {
    const mail = buildAlertMail(facts);
    const job = await enqueueJobInTransaction(client, {
      kind: 'mail.send', createdBy: `flow:${flow.name}`,
      params: { to, subject: mail.subject, text: mail.text, html: mail.html, connection: flow.smtp_connection ?? undefined, flowRunId: run.id },
    });
    await logFlowRun(client, run.id, 'info', `${event} alert to ${to.join(', ')} queued as mail.send job ${job.runId}`);
  }
  const hookFacts = hooks.length ? alertWebhookFacts(facts) : null;
  for (const connection of hooks) {
    const job = await enqueueJobInTransaction(client, { kind: 'webhook.send', createdBy: `flow:${flow.name}`, params: { connection, facts: hookFacts, flowRunId: run.id } });
    await logFlowRun(client, run.id, 'info', `${event} alert to webhook ${connection} queued as webhook.send job ${job.runId}`);
  }
}
