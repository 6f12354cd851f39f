import type pg from 'pg';
import type { Env } from '../config/env';
import { silentLogger } from '../log';
import { createJobRegistry, startWorker, type JobCatalog } from '../jobs';
import { startFlowScheduler, type SchedulerHandle } from '../flows';
import { jobDefinitions } from '../../workers/jobs';

/**
 * Test-only: what flows need to run in one process on a test database — a
 * worker running every job kind and the flow executor ticking every 200 ms,
 * with schedules off (tests fire them with `fireDue` at chosen instants).
 * `exec.tick()` runs an executor pass at once. The worker's stale limit is a minute: a heartbeat a loaded machine delays
 * must not fail a live node's job. `stop()` ends both.
 */
export async function startFlowsStack(o: { pool: pg.Pool; url: string; env: Env; publicUrl?: string }): Promise<{ catalog: JobCatalog; exec: SchedulerHandle; stop(): Promise<void> }> {
  const jobs = createJobRegistry(jobDefinitions);
  const catalog: JobCatalog = { jobs, env: o.env };
  const worker = await startWorker({ jobs, pool: o.pool, env: o.env, logger: silentLogger, concurrency: 4, heartbeatMs: 300, staleAfterMs: 60_000 });
  const exec = startFlowScheduler({ pool: o.pool, catalog, url: o.url, logger: silentLogger, tickMs: 200, schedule: false, publicUrl: o.publicUrl ?? 'http://panel.test:8765' });
  return {
    catalog,
    exec,
    stop: async () => {
      await exec.stop();
      await worker.stop({ timeoutMs: 10_000 });
    },
  };
}
