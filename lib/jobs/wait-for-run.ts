import type pg from 'pg';
import { getJobRun, type JobRunView } from './runs';

/**
 * Wait for a run to finish (succeeded, failed or cancelled), polling its row;
 * the run as it stands when it finished or when `timeoutMs` passed (still
 * queued or running then), null when there is no such run. For routes that
 * answer a short job's outcome in the same request (the models query box).
 */
export async function waitForJobRun(pool: pg.Pool, id: string, o: {
  /** How long to wait. */
  timeoutMs: number;
  /** Between two looks at the row. (Default: 100 ms) */
  pollMs?: number;
  /** Stop waiting (the client went away). (Default: none) */
  signal?: AbortSignal;
}): Promise<JobRunView | null> {
  const deadline = Date.now() + o.timeoutMs;
  for (;;) {
    const run = await getJobRun(pool, id, { logLimit: 0 });
    if (!run) return null;
    const { logs, ...view } = run; void logs;
    if (view.status === 'succeeded' || view.status === 'failed' || view.status === 'cancelled') return view;
    if (Date.now() >= deadline || o.signal?.aborted) return view;
    await new Promise((r) => setTimeout(r, Math.min(o.pollMs ?? 100, Math.max(1, deadline - Date.now()))));
  }
}
