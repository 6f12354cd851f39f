import type pg from 'pg';
import { AppError } from '../errors';
import { withTransaction } from '../db/with-transaction';
import { recordAudit, type AuditActor } from '../audit';
import { QUEUE, createBoss } from './queue';
import { redactSecrets, redactText } from '../log/secret-scan';

export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';
/** Where a run came from: the API (panel, tokens), an in-process CLI command, a flow, a schedule. */
export type JobSource = 'api' | 'cli' | 'flow' | 'schedule';
export const JOB_SOURCES = ['api', 'cli', 'flow', 'schedule'] as const satisfies readonly JobSource[];

export interface JobRunView {
  id: string; kind: string; params: unknown; status: JobStatus; createdBy: string | null; source: JobSource;
  progress: { done: number; total: number | null };
  attempts: number; workerId: string | null; cancelRequested: boolean;
  error: string | null; result: unknown;
  createdAt: string; startedAt: string | null; finishedAt: string | null; heartbeatAt: string | null;
}
export interface JobLogLine { id: number; ts: string; level: string; message: string; fields: Record<string, unknown> | null }

const iso = (d: Date | null) => (d ? d.toISOString() : null);
// Every run is readable by viewers: credentials that older rows, a log line or
// an engine's error text hold are masked on the way out.
function view(r: Record<string, any>): JobRunView {
  return {
    id: r.id, kind: r.kind, params: redactSecrets(r.params), status: r.status, createdBy: r.created_by, source: r.source ?? 'api',
    progress: { done: r.progress_done, total: r.progress_total },
    attempts: r.attempts, workerId: r.worker_id, cancelRequested: r.cancel_requested,
    error: r.error === null ? null : redactText(String(r.error)), result: redactSecrets(r.result),
    createdAt: iso(r.created_at)!, startedAt: iso(r.started_at), finishedAt: iso(r.finished_at), heartbeatAt: iso(r.heartbeat_at),
  };
}

/** One run with its log lines (those after `afterLogId`, for live tails). */
export async function getJobRun(pool: pg.Pool, id: string, opts: { afterLogId?: number; logLimit?: number } = {}): Promise<(JobRunView & { logs: JobLogLine[] }) | null> {
  if (!/^[0-9a-f-]{36}$/i.test(id)) return null;
  const r = await pool.query('select * from job_runs where id = $1', [id]);
  if (!r.rowCount) return null;
  const logs = await pool.query(
    'select id, ts, level, message, fields from job_logs where run_id = $1 and id > $2 order by id limit $3',
    [id, opts.afterLogId ?? 0, opts.logLimit ?? 1000],
  );
  return { ...view(r.rows[0]), logs: logs.rows.map((l) => ({ id: Number(l.id), ts: l.ts.toISOString(), level: l.level, message: redactText(l.message), fields: redactSecrets(l.fields) })) };
}

/** Runs, newest first, optionally filtered. */
export async function listJobRuns(pool: pg.Pool, f: { status?: JobStatus; kind?: string; source?: JobSource; limit?: number; before?: string } = {}): Promise<JobRunView[]> {
  const where: string[] = [];
  const args: unknown[] = [];
  if (f.status) { args.push(f.status); where.push(`status = $${args.length}`); }
  if (f.kind) { args.push(f.kind); where.push(`kind = $${args.length}`); }
  if (f.source) { args.push(f.source); where.push(`source = $${args.length}`); }
  if (f.before) { args.push(f.before); where.push(`created_at < $${args.length}`); }
  args.push(Math.min(Math.max(f.limit ?? 50, 1), 500));
  const r = await pool.query(
    `select * from job_runs ${where.length ? 'where ' + where.join(' and ') : ''} order by created_at desc limit $${args.length}`, args);
  return r.rows.map(view);
}

/**
 * Cancel a run: a queued one ends cancelled at once (and leaves the queue); a
 * running one is asked to stop at its next safe point.
 */
export async function requestCancel(pool: pg.Pool, id: string, audit?: AuditActor): Promise<JobRunView> {
  const run = await getJobRun(pool, id, { logLimit: 0 });
  if (!run) throw new AppError('not_found', `job run ${id} not found`);
  const queueJobId = await withTransaction(pool, async (client) => {
    const q = await client.query(
      `update job_runs set status = 'cancelled', finished_at = now(), error = 'cancelled before it started'
         where id = $1 and status = 'queued' returning queue_job_id`, [id]);
    let after: string;
    let queued: string | null = null;
    if (q.rowCount) {
      queued = q.rows[0].queue_job_id;
      after = 'cancelled';
    } else if ((await client.query(`update job_runs set cancel_requested = true where id = $1 and status = 'running'`, [id])).rowCount) {
      after = 'cancel_requested';
    } else {
      throw new AppError('conflict', `job run ${id} is already ${run.status}`);
    }
    // The event commits with the change it records.
    if (audit) await recordAudit(client, { ...audit, action: 'job.cancel', target: `job:${id}`, before: { status: run.status }, after: { status: after } });
    return queued;
  });
  // The run row is cancelled already and a worker skips any run not 'queued';
  // cancelling the queue job only saves that worker a claim.
  if (queueJobId) await createBoss(pool).cancel(QUEUE, queueJobId).catch(() => {});
  return (await getJobRun(pool, id, { logLimit: 0 }))!;
}
