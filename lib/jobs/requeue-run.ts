import type pg from 'pg';
import { QUEUE } from './queue';
import { logRow } from './finish-run';
import type { LogRecord } from '../log';

/** Attempts a run gets when the database goes away under it; the one after the last is failed as any other error. */
export const OUTAGE_ATTEMPTS = 3;

/**
 * Put a run that failed only because the database went away under it back in
 * the queue (its attempt counted), with its last log lines: a run enqueued or
 * running when the database restarts finishes once it is back instead of
 * ending "failed" on an error that says nothing about the run. Engines are
 * rerun-safe (watermarks and commits are atomic), so running it again is
 * what the operator's "retry" would do. Its queue job goes back to `created`,
 * a few seconds out, so the database has settled before it is claimed.
 * @returns false when the run had no attempts left or was not this worker's
 * any more (reaped, cancelled): the caller records its end as usual.
 */
export async function requeueRun(q: Pick<pg.Pool, 'query'>, e: { runId: string; workerId: string; queueJobId: string; logs: LogRecord[] }): Promise<boolean> {
  const r = await q.query(
    `with runs as (
       update job_runs set status = 'queued', worker_id = null, started_at = null, heartbeat_at = null, progress_done = 0
        where id = $1 and worker_id = $2 and status = 'running' and not cancel_requested and attempts < $5
       returning id
     ), logs as (
       insert into job_logs (run_id, ts, level, message, fields)
       select $1, x.ts, x.level, x.message, x.fields
         from rows from (jsonb_to_recordset($6::jsonb) as (ts timestamptz, level text, message text, fields jsonb))
              with ordinality as x(ts, level, message, fields, n)
        where exists (select 1 from runs)
        order by x.n
     ), job as (
       update pgboss.job set state = 'created', started_on = null, start_after = now() + interval '3 seconds'
        where name = $3 and id = $4::uuid and state = 'active' and exists (select 1 from runs)
     )
     select count(*)::int as n from runs`,
    [e.runId, e.workerId, QUEUE, e.queueJobId, OUTAGE_ATTEMPTS, JSON.stringify(e.logs.map(logRow))]);
  return r.rows[0].n > 0;
}
