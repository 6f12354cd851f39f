import type pg from 'pg';
import { QUEUE } from './queue';

/** A run this worker now holds (`running`, its worker id set), with the queue job that carried it. */
export interface ClaimedRun { queueJobId: string; runId: string; kind: string; params: unknown; /** this attempt's number, from 1 */ attempts: number }

/**
 * Take up to `limit` queue jobs and claim their runs, in one statement (one
 * round trip per batch instead of a fetch and then one UPDATE per run).
 * The first half is pg-boss 10's own fetch (plans.js `fetchNextJob`, standard
 * policy: oldest first, SKIP LOCKED so workers never wait on each other);
 * the second marks each job's run `running` only if it is still `queued`.
 * @returns the claimed runs, and the queue jobs whose run was not queued any
 * more (cancelled, or taken inline by its coordinator): those are done.
 */
export async function claimRuns(q: Pick<pg.Pool, 'query'>, workerId: string, limit: number): Promise<{ runs: ClaimedRun[]; stale: string[] }> {
  const r = await q.query(
    `with next as (
       select id from pgboss.job
        where name = $1 and state < 'active' and start_after < now()
        order by priority desc, created_on, id
        limit $2
        for update skip locked
     ), taken as (
       update pgboss.job j
          set state = 'active', started_on = now(),
              retry_count = case when j.started_on is not null then j.retry_count + 1 else j.retry_count end
         from next where j.name = $1 and j.id = next.id
       returning j.id, (j.data->>'runId')::uuid as run_id
     ), runs as (
       update job_runs r
          set status = 'running', worker_id = $3, started_at = now(), heartbeat_at = now(), attempts = r.attempts + 1
         from taken where r.id = taken.run_id and r.status = 'queued'
       returning r.id, r.kind, r.params, r.attempts
     )
     select taken.id as queue_job_id, taken.run_id, runs.kind, runs.params, runs.attempts
       from taken left join runs on runs.id = taken.run_id`,
    [QUEUE, limit, workerId]);
  const runs: ClaimedRun[] = [];
  const stale: string[] = [];
  for (const row of r.rows) {
    if (row.kind === null) stale.push(row.queue_job_id);
    else runs.push({ queueJobId: row.queue_job_id, runId: row.run_id, kind: row.kind, params: row.params, attempts: row.attempts });
  }
  return { runs, stale };
}
