import type pg from 'pg';
import type PgBoss from 'pg-boss';
import { QUEUE } from './queue';

/**
 * Fail runs whose worker stopped heartbeating (killed, machine lost): a run
 * never stays "running" forever. Any worker may reap; the UPDATE is atomic, so
 * two reapers never both claim the same run.
 * @returns ids of the runs it failed
 */
export async function reapStaleRuns(pool: pg.Pool, boss: PgBoss | null, staleAfterMs: number): Promise<string[]> {
  const r = await pool.query(
    `update job_runs
        set status = 'failed', finished_at = now(),
            error = 'worker ' || coalesce(worker_id, '?') || ' stopped responding (last heartbeat '
                    || to_char(heartbeat_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
                    || '); the run was failed — start it again to resume'
      where status = 'running' and heartbeat_at < now() - make_interval(secs => $1)
      returning id, queue_job_id, error`,
    [staleAfterMs / 1000],
  );
  for (const row of r.rows) {
    // The run is already failed (the update above); the log line and the queue's copy of the
    // verdict are conveniences — the next reaper round would not redo them, and nothing depends on them.
    await pool.query(`insert into job_logs (run_id, level, message) values ($1, 'error', $2)`, [row.id, row.error]).catch(() => {});
    if (boss && row.queue_job_id) await boss.fail(QUEUE, row.queue_job_id, { reason: row.error }).catch(() => {}); // the run row is already failed; the queue's copy of the verdict is a convenience
  }
  return r.rows.map((x) => x.id as string);
}
