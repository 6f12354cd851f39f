import type pg from 'pg';
import { enqueuePipelineJobs } from '../pipelines';
import type { JobCatalog } from '../jobs/types';
import type { NodeStatus } from './runs';
import { queueAlert, type AlertFlow } from './alert-queue';
import type { FlowStepPlan, LogLine, NodeChange, StepFlow, StepState } from './step-plan';

/**
 * The executor's I/O: read one run's state under its lock, and write a
 * plan (step-plan.ts) back with one statement per kind — one UPDATE for
 * every node change, one INSERT for every log line, one batch for every
 * job start (a node whose spec no longer validates fails alone, the run's
 * other writes stay).
 */

interface RunRow {
  id: string; flow_id: string; flow_name: string; status: 'queued' | 'running'; cancel_requested: boolean; max_parallel: number;
  created_at: Date; started_at: Date | null; finished_at: Date | null; scheduled_for: Date | null; long_alert_sent: boolean;
}
interface NodeRow {
  node_id: string; label: string | null; pipeline_id: string | null; kind: string; params: Record<string, unknown>; parents: string[];
  status: NodeStatus; job_run_id: string | null; error: string | null;
  job_status: string | null; job_result: unknown; job_error: string | null; job_started_at: Date | null; job_finished_at: Date | null;
}
interface FlowRow {
  id: string; name: string; alert_on_failure: boolean; alert_on_success: boolean; alert_long_running_minutes: number | null;
  alert_recipients: string[] | null; alert_webhooks: string[] | null; smtp_connection: string | null;
}

export interface LoadedStep {
  state: StepState;
  run: RunRow;
  flow: (StepFlow & AlertFlow) | null;
}

/**
 * Lock and read a queued or running run, its nodes with their job runs, and
 * its flow. @returns null when the run has ended or another worker holds it (SKIP LOCKED)
 */
export async function loadFlowStep(client: pg.PoolClient, runId: string): Promise<LoadedStep | null> {
  const rr = await client.query<RunRow>(`select * from flow_runs where id = $1 and status in ('queued', 'running') for update skip locked`, [runId]);
  const run = rr.rows[0];
  if (!run) return null;
  let flowBusy = false;
  if (run.status === 'queued' && !run.cancel_requested) {
    // One run of a flow at a time: lock the flow so two workers starting two queued runs serialise here.
    await client.query('select 1 from flows where id = $1 for update', [run.flow_id]);
    const busy = await client.query(
      `select 1 from flow_runs where flow_id = $1 and id <> $2 and (status = 'running' or (status = 'queued' and created_at < $3)) limit 1`,
      [run.flow_id, runId, run.created_at]);
    flowBusy = (busy.rowCount ?? 0) > 0;
  }
  const nr = await client.query<NodeRow>(
    `select n.*, j.status as job_status, j.error as job_error, j.result as job_result, j.started_at as job_started_at, j.finished_at as job_finished_at
       from flow_run_nodes n left join job_runs j on j.id = n.job_run_id
      where n.flow_run_id = $1 for update of n`, [runId]);
  const f = (await client.query<FlowRow>('select * from flows where id = $1', [run.flow_id])).rows[0] ?? null;
  return {
    run,
    flow: f && {
      id: f.id, name: f.name, alertOnFailure: f.alert_on_failure, alertOnSuccess: f.alert_on_success, alertLongRunningMinutes: f.alert_long_running_minutes,
      recipients: f.alert_recipients ?? [], webhooks: f.alert_webhooks ?? [], smtpConnection: f.smtp_connection,
    },
    state: {
      run: { id: run.id, status: run.status, cancelRequested: run.cancel_requested, maxParallel: run.max_parallel, startedAt: run.started_at, longAlertSent: run.long_alert_sent },
      flow: f && { alertOnFailure: f.alert_on_failure, alertOnSuccess: f.alert_on_success, alertLongRunningMinutes: f.alert_long_running_minutes },
      flowBusy,
      nodes: nr.rows.map((n) => ({
        nodeId: n.node_id, label: n.label, pipelineId: n.pipeline_id, kind: n.kind, params: n.params, parents: n.parents,
        status: n.status, jobRunId: n.job_run_id, error: n.error,
        job: n.job_status === null ? null
          : { status: n.job_status, result: n.job_result, error: n.job_error, startedAt: n.job_started_at, finishedAt: n.job_finished_at },
      })),
    },
  };
}

/** Write a plan. @returns whether a node could not start (its failure may unblock more of the plan: the caller plans again) */
export async function applyFlowStep(client: pg.PoolClient, catalog: JobCatalog, publicUrl: string, loaded: LoadedStep, plan: FlowStepPlan): Promise<{ startFailed: boolean }> {
  if (plan.wait) return { startFailed: false };
  const { run, flow } = loaded;
  const logs: LogLine[] = [...plan.logs];
  const changes: NodeChange[] = [...plan.nodeChanges];

  if (plan.startRun) await client.query(`update flow_runs set status = 'running', started_at = coalesce(started_at, now()) where id = $1`, [run.id]);

  const starts = await startNodes(client, catalog, loaded, plan.starts);
  changes.push(...starts.changes);
  logs.push(...starts.logs);
  await updateNodes(client, run.id, changes);

  if (plan.close) {
    const c = plan.close;
    const fin = await client.query<RunRow>(`update flow_runs set status = $2, error = $3, finished_at = now() where id = $1 returning *`, [run.id, c.status, c.error]);
    logs.push({ level: c.status === 'succeeded' ? 'info' : c.status === 'failed' ? 'error' : 'warn', message: `run ${c.status}` });
    if (c.alert && flow) {
      const r = fin.rows[0];
      const failed = plan.after.find((n) => n.nodeId === c.failedNodeId) ?? null;
      logs.push(...await queueAlert(client, catalog, publicUrl, flow, { id: r.id, startedAt: r.started_at, finishedAt: r.finished_at, scheduledFor: r.scheduled_for }, plan.after, c.alert, failed));
    }
  } else if (plan.longRunningAlert && flow) {
    const r = (await client.query<RunRow>('update flow_runs set long_alert_sent = true where id = $1 returning *', [run.id])).rows[0];
    logs.push(...await queueAlert(client, catalog, publicUrl, flow, { id: r.id, startedAt: r.started_at, finishedAt: null, scheduledFor: r.scheduled_for }, plan.after, 'long_running', null));
  }
  await insertLogs(client, run.id, logs);
  return { startFailed: starts.failed };
}

/**
 * Start the plan's nodes as one batch of jobs (one INSERT of run rows, one
 * pg-boss insert, one INSERT of pipeline history) in the run's transaction:
 * the jobs and the nodes' `job_run_id`s commit together, so a worker killed
 * between the two writes leaves neither and the next tick starts each node
 * once. A node whose spec no longer validates fails alone ("could not start").
 */
async function startNodes(client: pg.PoolClient, catalog: JobCatalog, loaded: LoadedStep, ids: string[]): Promise<{ changes: NodeChange[]; logs: LogLine[]; failed: boolean }> {
  const { run } = loaded;
  const byId = new Map(loaded.state.nodes.map((n) => [n.nodeId, n]));
  const nodes = ids.map((id) => byId.get(id)!);
  const out = await enqueuePipelineJobs(client, catalog, nodes.map((n) => ({
    pipelineId: n.pipelineId, flowRunId: n.pipelineId ? run.id : undefined, kind: n.kind, params: n.params, createdBy: `flow:${run.flow_name}/${n.nodeId}`,
  })));
  const changes: NodeChange[] = [];
  const logs: LogLine[] = [];
  nodes.forEach((n, i) => {
    const r = out[i];
    if (r.error) {
      const msg = r.error.message;
      changes.push({ nodeId: n.nodeId, status: 'failed', error: `could not start: ${msg}`, finishedAt: new Date() });
      logs.push({ level: 'error', message: `node ${n.nodeId} could not start: ${msg}` });
    } else {
      changes.push({ nodeId: n.nodeId, status: 'queued', jobRunId: r.runId });
      logs.push({ level: 'info', message: `node ${n.nodeId} queued as ${n.kind} job ${r.runId}` });
    }
  });
  return { changes, logs, failed: out.some((r) => r.error) };
}

/** Every node change in one UPDATE; a field a change leaves out keeps its stored value. */
async function updateNodes(client: pg.PoolClient, runId: string, changes: NodeChange[]): Promise<void> {
  if (!changes.length) return;
  await client.query(
    `update flow_run_nodes n set status = u.status, error = coalesce(u.error, n.error),
        job_run_id = coalesce(u.job_run_id, n.job_run_id), attempts = n.attempts + case when u.job_run_id is null then 0 else 1 end,
        started_at = coalesce(u.started_at, n.started_at), finished_at = coalesce(u.finished_at, n.finished_at)
       from unnest($2::text[], $3::text[], $4::text[], $5::uuid[], $6::timestamptz[], $7::timestamptz[])
            as u(node_id, status, error, job_run_id, started_at, finished_at)
      where n.flow_run_id = $1 and n.node_id = u.node_id`,
    [runId, changes.map((c) => c.nodeId), changes.map((c) => c.status), changes.map((c) => c.error ?? null),
      changes.map((c) => c.jobRunId ?? null), changes.map((c) => c.startedAt ?? null), changes.map((c) => c.finishedAt ?? null)]);
}

/** Every log line in one INSERT, in order (ids follow the ordinality). */
async function insertLogs(client: pg.PoolClient, runId: string, logs: LogLine[]): Promise<void> {
  if (!logs.length) return;
  await client.query(
    `insert into flow_run_logs (flow_run_id, level, message)
     select $1, l.level, l.message from unnest($2::text[], $3::text[]) with ordinality as l(level, message, i) order by l.i`,
    [runId, logs.map((l) => l.level), logs.map((l) => l.message.slice(0, 10_000))]);
}
