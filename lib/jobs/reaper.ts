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
 *
 * A run that crashes its worker as it starts (a stream whose first batch kills the process) must
 * not hop from worker to worker forever: an attempt that lost its worker within QUICK_LOSS_S of
 * starting is queued again only after a back-off (5 s, doubling per attempt, at most 5 min) and
 * only while the run has had fewer than MAX_QUICK_RESUME_ATTEMPTS attempts; past that it is
 * failed, saying so. An attempt that ran longer (a stream that had been streaming) is taken over
 * at once, whatever its count: losing a worker now and then is what resuming is for.
 */
export const QUICK_LOSS_S = 60;
export const MAX_QUICK_RESUME_ATTEMPTS = 5;
export async function reapStaleRuns(pool: pg.Pool, boss: PgBoss | null, staleAfterMs: number, o: { resumeKinds?: readonly string[] } = {}): Promise<Reaped> {
  const r = await pool.query(
    `with stale as (
       select r.id, r.queue_job_id,
              'worker ' || coalesce(r.worker_id, '?') || ' stopped responding (last heartbeat '
                || to_char(r.heartbeat_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') || ')' as why,
              r.attempts, q.quick,
              (r.kind = any($2::text[]) and not r.cancel_requested and j.id is not null) as resumable,
              (r.kind = any($2::text[]) and not r.cancel_requested and j.id is not null and (not q.quick or r.attempts < $5)) as resume,
              -- a quick loss waits 5 s × 2^(attempt − 1), at most 5 min, before another worker may claim it
              case when q.quick then least(5 * power(2, greatest(r.attempts, 1) - 1), 300)::int else 0 end as backoff_s
         from job_runs r left join pgboss.job j on j.name = $3 and j.id = r.queue_job_id
         cross join lateral (select r.started_at is null or r.heartbeat_at < r.started_at + make_interval(secs => $4) as quick) q
        where r.status = 'running' and r.heartbeat_at < now() - make_interval(secs => $1)
        for update of r skip locked
     ), resumed as (
       update job_runs r set status = 'queued', worker_id = null, started_at = null, heartbeat_at = null
         from stale where r.id = stale.id and stale.resume
       returning r.id, stale.queue_job_id, stale.backoff_s, stale.why || '; the run was queued again for another worker to take over'
         || case when stale.backoff_s > 0 then ' in ' || stale.backoff_s || ' s (attempt ' || stale.attempts || ' lost its worker within ' || $4 || ' s of starting)' else '' end as message
     ), requeued_jobs as (
       update pgboss.job j set state = 'created', started_on = null, start_after = now() + make_interval(secs => resumed.backoff_s)
         from resumed where j.name = $3 and j.id = resumed.queue_job_id
     ), failed as (
       update job_runs r set status = 'failed', finished_at = now(), error = stale.why || case when stale.resumable
           then '; attempt ' || stale.attempts || ' lost its worker within ' || $4 || ' s of starting again: failed rather than queued again, so a run that crashes its worker as it starts does not loop — start it again once the cause is fixed'
           else '; the run was failed — start it again to resume' end
         from stale where r.id = stale.id and not stale.resume
       returning r.id, r.queue_job_id, r.error as message
     )
     select id, queue_job_id, message, false as resumed from failed
     union all select id, queue_job_id, message, true from resumed`,
    [staleAfterMs / 1000, [...(o.resumeKinds ?? [])], QUEUE, QUICK_LOSS_S, MAX_QUICK_RESUME_ATTEMPTS],
  );
  for (const row of r.rows) {
    // The run is already failed or queued (the statement above); the log line and the queue's copy of a
    // failure are conveniences — the next reaper round would not redo them, and nothing depends on them.
    await pool.query(`insert into job_logs (run_id, level, message) values ($1, $2, $3)`, [row.id, row.resumed ? 'warn' : 'error', row.message]).catch(() => {});
    if (!row.resumed && boss && row.queue_job_id) await boss.fail(QUEUE, row.queue_job_id, { reason: row.message }).catch(() => {});
  }
  return { failed: r.rows.filter((x) => !x.resumed).map((x) => x.id as string), resumed: r.rows.filter((x) => x.resumed).map((x) => x.id as string) };
}
