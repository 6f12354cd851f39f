import crypto from 'node:crypto';
import type pg from 'pg';
import { AppError } from '../errors';
import { requestCancel } from '../jobs/runs';
import { createIdempotently, findIdempotentRun, type IdempotencyRequest } from '../jobs/idempotency';
import { assertQueueAdmits, type QueueLimits } from '../jobs/admission';
import { withTransaction } from '../pipelines';
import { parentsOf } from './dag';
import { logFlowRun } from './run-log';
import type { FlowNodeView } from './store';

/**
 * Flow runs: a snapshot of the flow's nodes (pipelines resolved to their
 * kind and params at that moment), one row per node. The executor
 * (executor.ts) advances them from database state.
 */
export type FlowRunStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled' | 'skipped';
export type NodeStatus = 'pending' | 'queued' | 'running' | 'succeeded' | 'failed' | 'skipped' | 'cancelled';

export interface FlowRunNodeView {
  nodeId: string; label: string | null; pipelineId: string | null; kind: string; params: Record<string, unknown>;
  parents: string[]; status: NodeStatus; jobRunId: string | null; attempts: number; error: string | null;
  startedAt: string | null; finishedAt: string | null;
}
export interface FlowRunView {
  id: string; flowId: string; flowName: string; scheduledFor: string | null; trigger: 'schedule' | 'manual';
  status: FlowRunStatus; maxParallel: number; cancelRequested: boolean; error: string | null; createdBy: string | null;
  createdAt: string; startedAt: string | null; finishedAt: string | null;
}
export interface FlowRunLogLine { id: number; ts: string; level: string; message: string }

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function runView(r: Record<string, any>): FlowRunView {
  return {
    id: r.id, flowId: r.flow_id, flowName: r.flow_name, scheduledFor: iso(r.scheduled_for), trigger: r.trigger, status: r.status,
    maxParallel: r.max_parallel, cancelRequested: r.cancel_requested, error: r.error, createdBy: r.created_by,
    createdAt: iso(r.created_at)!, startedAt: iso(r.started_at), finishedAt: iso(r.finished_at),
  };
}
export function nodeView(r: Record<string, any>): FlowRunNodeView {
  return {
    nodeId: r.node_id, label: r.label, pipelineId: r.pipeline_id, kind: r.kind, params: r.params, parents: r.parents,
    status: r.status, jobRunId: r.job_run_id, attempts: r.attempts, error: r.error,
    startedAt: iso(r.started_at), finishedAt: iso(r.finished_at),
  };
}

export interface NewRun {
  trigger: 'schedule' | 'manual';
  /** The fire time (schedule only): with the flow, the run's unique key. */
  scheduledFor?: Date | null;
  createdBy?: string | null;
  /** (Default: queued) — `skipped` records a fire the overlap policy dropped. */
  status?: 'queued' | 'skipped';
  error?: string | null;
}

/**
 * Create a run of a flow in the caller's transaction, with its node rows.
 * For a scheduled run a second insert for the same fire does nothing and
 * returns null: that is what makes a double fire harmless.
 */
export async function insertFlowRun(client: Pick<pg.PoolClient, 'query'>, flowRow: Record<string, any>, run: NewRun): Promise<string | null> {
  const id = crypto.randomUUID();
  const ins = await client.query(
    `insert into flow_runs (id, flow_id, flow_name, scheduled_for, trigger, status, max_parallel, created_by, error, finished_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, case when $6 = 'skipped' then now() end)
     on conflict (flow_id, scheduled_for) do nothing returning id`,
    [id, flowRow.id, flowRow.name, run.scheduledFor ?? null, run.trigger, run.status ?? 'queued', flowRow.max_parallel, run.createdBy ?? null, run.error ?? null]);
  if (!ins.rowCount) return null;
  if ((run.status ?? 'queued') === 'skipped') return id;
  const nodes = flowRow.nodes as FlowNodeView[];
  const parents = parentsOf(nodes.map((n) => n.id), flowRow.edges);
  const pipelines = new Map<string, { name: string; kind: string; params: unknown }>();
  const ids = nodes.map((n) => n.pipeline).filter(Boolean) as string[];
  if (ids.length) {
    const r = await client.query('select id, name, kind, params from pipelines where id = any($1::uuid[])', [ids]);
    for (const p of r.rows) pipelines.set(p.id, p);
  }
  for (const n of nodes) {
    const p = n.pipeline ? pipelines.get(n.pipeline) : undefined;
    if (n.pipeline && !p) throw new AppError('conflict', `flows: node '${n.id}' of '${flowRow.name}' names a pipeline that no longer exists`);
    await client.query(
      `insert into flow_run_nodes (flow_run_id, node_id, label, pipeline_id, kind, params, parents) values ($1, $2, $3, $4, $5, $6, $7)`,
      [id, n.id, n.label ?? p?.name ?? null, n.pipeline ?? null, p?.kind ?? n.kind, JSON.stringify(p?.params ?? n.params ?? {}), parents.get(n.id) ?? []]);
  }
  return id;
}

/**
 * Start a flow run now (queued; the executor starts it when no other run of the flow is going).
 * @param opts.idempotency a repeat of this key within 24 hours returns the first run (`replayed`) and creates nothing (Default: none)
 * @param opts.admission refuse (429) when the job queue is past these limits; a replay is never refused (Default: no limits)
 */
export async function startFlowRun(pool: pg.Pool, flowRef: string, createdBy?: string | null, opts: { idempotency?: IdempotencyRequest; admission?: QueueLimits } = {}): Promise<FlowRunView & { replayed: boolean }> {
  if (opts.idempotency) {
    const prior = await findIdempotentRun(pool, opts.idempotency, 'flow_run');
    if (prior) {
      const run = await getFlowRun(pool, prior);
      if (run) return { ...run.run, replayed: true };
    }
  }
  if (opts.admission) await assertQueueAdmits(pool, opts.admission);
  const { id, replayed } = await createIdempotently(pool, opts.idempotency, 'flow_run', async (client) => {
    const f = UUID.test(flowRef)
      ? await client.query('select * from flows where id = $1 or name = $1::text', [flowRef])
      : await client.query('select * from flows where name = $1', [flowRef]);
    if (!f.rowCount) throw new AppError('not_found', `flows: no flow '${flowRef}'`);
    const runId = (await insertFlowRun(client, f.rows[0], { trigger: 'manual', createdBy }))!;
    await logFlowRun(client, runId, 'info', `run started by ${createdBy ?? 'unknown'}`);
    return runId;
  });
  return { ...(await getFlowRun(pool, id))!.run, replayed };
}

export async function getFlowRun(db: Pick<pg.Pool, 'query'>, id: string, opts: { afterLogId?: number } = {}): Promise<{ run: FlowRunView; nodes: FlowRunNodeView[]; logs: FlowRunLogLine[] } | null> {
  if (!UUID.test(id)) return null;
  const r = await db.query('select * from flow_runs where id = $1', [id]);
  if (!r.rowCount) return null;
  const n = await db.query('select * from flow_run_nodes where flow_run_id = $1 order by node_id', [id]);
  const l = await db.query('select id, ts, level, message from flow_run_logs where flow_run_id = $1 and id > $2 order by id limit 1000', [id, opts.afterLogId ?? 0]);
  return {
    run: runView(r.rows[0]), nodes: n.rows.map(nodeView),
    logs: l.rows.map((x) => ({ id: Number(x.id), ts: x.ts.toISOString(), level: x.level, message: x.message })),
  };
}

/** Runs newest first, of one flow or of all. */
export async function listFlowRuns(db: Pick<pg.Pool, 'query'>, f: { flowId?: string; status?: FlowRunStatus; limit?: number } = {}): Promise<(FlowRunView & { nodes: Pick<FlowRunNodeView, 'nodeId' | 'status'>[] })[]> {
  const r = await db.query(
    `select r.*, coalesce((select json_agg(json_build_object('nodeId', n.node_id, 'status', n.status) order by n.node_id)
                            from flow_run_nodes n where n.flow_run_id = r.id), '[]') as node_states
       from flow_runs r where ($1::uuid is null or flow_id = $1) and ($2::text is null or status = $2)
      order by created_at desc limit $3`,
    [f.flowId ?? null, f.status ?? null, Math.min(Math.max(f.limit ?? 50, 1), 500)]);
  return r.rows.map((x) => ({ ...runView(x), nodes: x.node_states }));
}

/**
 * Cancel a run: nodes not started end cancelled, running jobs are asked to
 * stop (requestCancel); the executor closes the run once they have.
 */
export async function cancelFlowRun(pool: pg.Pool, id: string, by?: string | null): Promise<FlowRunView> {
  const jobs = await withTransaction(pool, async (c) => {
    const r = await c.query('select * from flow_runs where id = $1 for update', [UUID.test(id) ? id : '00000000-0000-0000-0000-000000000000']);
    if (!r.rowCount) throw new AppError('not_found', `flows: no flow run '${id}'`);
    if (!['queued', 'running'].includes(r.rows[0].status)) throw new AppError('conflict', `flows: run ${id} is already ${r.rows[0].status}`);
    await c.query(`update flow_runs set cancel_requested = true where id = $1`, [id]);
    await c.query(`update flow_run_nodes set status = 'cancelled', finished_at = now(), error = 'cancelled' where flow_run_id = $1 and status = 'pending'`, [id]);
    await logFlowRun(c, id, 'warn', `cancel requested by ${by ?? 'unknown'}`);
    const a = await c.query(`select job_run_id from flow_run_nodes where flow_run_id = $1 and status in ('queued', 'running') and job_run_id is not null`, [id]);
    return a.rows.map((x) => x.job_run_id as string);
  });
  for (const j of jobs) await requestCancel(pool, j).catch(() => {}); // already finished: the executor reads its real end
  return (await getFlowRun(pool, id))!.run;
}

/**
 * Retry a failed or cancelled run from where it stopped: its failed,
 * skipped and cancelled nodes go back to pending (succeeded ones are kept),
 * and the run is queued again.
 */
export async function retryFlowRun(pool: pg.Pool, id: string, by?: string | null): Promise<FlowRunView> {
  await withTransaction(pool, async (c) => {
    const r = await c.query('select * from flow_runs where id = $1 for update', [UUID.test(id) ? id : '00000000-0000-0000-0000-000000000000']);
    if (!r.rowCount) throw new AppError('not_found', `flows: no flow run '${id}'`);
    if (!['failed', 'cancelled'].includes(r.rows[0].status)) throw new AppError('conflict', `flows: only a failed or cancelled run can be retried; run ${id} is ${r.rows[0].status}`);
    const n = await c.query(
      `update flow_run_nodes set status = 'pending', error = null, started_at = null, finished_at = null, job_run_id = null
        where flow_run_id = $1 and status in ('failed', 'skipped', 'cancelled') returning node_id`, [id]);
    await c.query(`update flow_runs set status = 'queued', cancel_requested = false, long_alert_sent = false, error = null, finished_at = null where id = $1`, [id]);
    await logFlowRun(c, id, 'info', `retried by ${by ?? 'unknown'} from ${n.rows.map((x) => x.node_id).join(', ')}`);
  });
  return (await getFlowRun(pool, id))!.run;
}
