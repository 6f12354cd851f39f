import type pg from 'pg';
import { QUEUE } from './queue';

/**
 * Hand claimed runs back to the queue, untouched: for a worker that claimed a
 * batch just as it began stopping. Each run is `queued` again (its attempt
 * not counted) and its queue job `created`, so another worker takes it.
 * pg-boss 10 has no call for this; the statement undoes only what
 * `claimRuns` set.
 */
export async function releaseRuns(q: Pick<pg.Pool, 'query'>, workerId: string, runs: { runId: string; queueJobId: string }[]): Promise<void> {
  if (!runs.length) return;
  await q.query(
    `with runs as (
       update job_runs set status = 'queued', worker_id = null, started_at = null, heartbeat_at = null, attempts = attempts - 1
        where id = any($3::uuid[]) and worker_id = $2 and status = 'running'
     )
     update pgboss.job set state = 'created', started_on = null
      where name = $1 and id = any($4::uuid[]) and state = 'active'`,
    [QUEUE, workerId, runs.map((r) => r.runId), runs.map((r) => r.queueJobId)]);
}
