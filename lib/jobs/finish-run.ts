import type pg from 'pg';
import type { LogRecord } from '../log';
import { QUEUE } from './queue';

/** How a run ended, as its worker writes it. */
export interface RunEnd {
  runId: string;
  workerId: string;
  status: 'succeeded' | 'failed' | 'cancelled';
  error: string | null;
  result: unknown;
  progressDone: number;
  progressTotal: number | null;
  /** The queue job that carried the run; none for a run taken inline. */
  queueJobId: string | null;
  /** The run's log lines not written yet. */
  logs: LogRecord[];
}

/** A log line as a job_logs row (message capped at 10,000 characters; empty fields stored as null). */
export function logRow(r: LogRecord) {
  // Postgres stores no NUL in text or jsonb, and one refused line would lose its batch (or here the
  // run's end): a NUL is written as the visible escape `\0` (message) or the text `\u0000` (fields).
  const fields = Object.keys(r.fields).length ? JSON.parse(JSON.stringify(r.fields).replace(/(?<!\\)((?:\\\\)*)\\u0000/g, '$1\\\\u0000')) : null;
  return { ts: r.ts, level: r.level, message: r.message.slice(0, 10_000).replace(/\u0000/g, '\\0'), fields };
}

/**
 * Write a run's end in one statement: its last log lines, its status and
 * result (only while this worker still holds it: a reaped run keeps the
 * reaper's verdict), and the completion of its queue job. One round trip
 * where there were three; a tiny job's cost is mostly these round trips.
 * @returns false when the run was no longer this worker's (reaped)
 */
export async function finishRun(q: Pick<pg.Pool, 'query'>, e: RunEnd): Promise<boolean> {
  const r = await q.query(
    `with logs as (
       insert into job_logs (run_id, ts, level, message, fields)
       select $1, x.ts, x.level, x.message, x.fields
         from rows from (jsonb_to_recordset($8::jsonb) as (ts timestamptz, level text, message text, fields jsonb))
              with ordinality as x(ts, level, message, fields, n)
        order by x.n
     ), done as (
       update pgboss.job set state = 'completed', completed_on = now()
        where name = $9 and id = $10::uuid and state = 'active'
     )
     update job_runs set status = $3, error = $4, result = $5, finished_at = now(), heartbeat_at = now(),
            progress_done = $6, progress_total = coalesce($7, progress_total)
      where id = $1 and worker_id = $2 and status = 'running'`,
    [e.runId, e.workerId, e.status, e.error, e.result === null || e.result === undefined ? null : JSON.stringify(e.result),
      e.progressDone, e.progressTotal, JSON.stringify(e.logs.map(logRow)), QUEUE, e.queueJobId]);
  return (r.rowCount ?? 0) > 0;
}
