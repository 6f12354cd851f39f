import type pg from 'pg';
import type PgBoss from 'pg-boss';
import { QUEUE } from './queue';

/** What one reaper round did: runs failed, and runs of resumable kinds queued again. */
export interface Reaped { failed: string[]; resumed: string[] }

/**
 * Runs whose worker stopped heartbeating (killed, machine lost) never stay "running" forever.
 * A run of a kind in `resumeKinds` (a definition's `resumeOnWorkerLoss`, e.g. `cdc.stream`) is
 * queued again, its queue job back to `created`, so another worker takes it over and it resumes
 * from its own recorded position; every other run is failed. A run asked to cancel, or whose
 * queue job is gone (a CLI's recorded run has none), is failed too. Any worker may reap: the
 * rows are locked SKIP LOCKED and updated in one statement, so two reapers never both take one.
 */
export async function reapStaleRuns(pool: pg.Pool, boss: PgBoss | null, staleAfterMs: number, o: { resumeKinds?: readonly string[] } = {}): Promise<Reaped> {
  const r = await pool.query(
    `with stale as (
       select r.id, r.queue_job_id,
              'worker ' || coalesce(r.worker_id, '?') || ' stopped responding (last heartbeat '
                || to_char(r.heartbeat_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') || ')' as why,
              (r.kind = any($2::text[]) and not r.cancel_requested and j.id is not null) as resume
         from job_runs r left join pgboss.job j on j.name = $3 and j.id = r.queue_job_id
        where r.status = 'running' and r.heartbeat_at < now() - make_interval(secs => $1)
        for update of r skip locked
     ), resumed as (
       update job_runs r set status = 'queued', worker_id = null, started_at = null, heartbeat_at = null
         from stale where r.id = stale.id and stale.resume
       returning r.id, stale.queue_job_id, stale.why || '; the run was queued again for another worker to take over' as message
     ), requeued_jobs as (
       update pgboss.job j set state = 'created', started_on = null, start_after = now()
         from resumed where j.name = $3 and j.id = resumed.queue_job_id
     ), failed as (
       update job_runs r set status = 'failed', finished_at = now(), error = stale.why || '; the run was failed — start it again to resume'
         from stale where r.id = stale.id and not stale.resume
       returning r.id, r.queue_job_id, r.error as message
     )
     select id, queue_job_id, message, false as resumed from failed
     union all select id, queue_job_id, message, true from resumed`,
    [staleAfterMs / 1000, [...(o.resumeKinds ?? [])], QUEUE],
  );
  for (const row of r.rows) {
    // The run is already failed or queued (the statement above); the log line and the queue's copy of a
    // failure are conveniences — the next reaper round would not redo them, and nothing depends on them.
    await pool.query(`insert into job_logs (run_id, level, message) values ($1, $2, $3)`, [row.id, row.resumed ? 'warn' : 'error', row.message]).catch(() => {});
    if (!row.resumed && boss && row.queue_job_id) await boss.fail(QUEUE, row.queue_job_id, { reason: row.message }).catch(() => {});
  }
  return { failed: r.rows.filter((x) => !x.resumed).map((x) => x.id as string), resumed: r.rows.filter((x) => x.resumed).map((x) => x.id as string) };
}
