import type { Env } from '../lib/config/env';
import { connectDatabase, createPool } from '../lib/db';
import { publicUrl } from '../lib/config/public-url';
import { createJobRegistry, installQueue, startWorker, type JobDefinition } from '../lib/jobs';
import { collapseRepeats, consoleSink, createLogger } from '../lib/log';
import { isDatabaseUnavailable } from '../lib/errors/db-unavailable';
import { jobDefinitions } from './jobs';
import { startFlowScheduler } from '../lib/flows';
import { lineageFromEnv } from '../lib/lineage';
import { freshnessLeaderTask, freshnessSources, loadFreshnessConfig } from '../lib/freshness';
import { branchSources } from '../lib/cdc/figures';
import { cdcLagLeaderTask } from '../lib/cdc/lag-alert';

/**
 * The worker process: claims jobs and runs the engines until SIGINT (stop) or SIGTERM (drain).
 * Several may run, on several machines, against the same database.
 * @param opts.settings the environment, parsed once by the process's edge (the CLI's `main()`)
 * @param opts.jobs the kinds it runs (Default: every kind of `workers/jobs.ts`)
 * @returns a promise that settles when the worker has stopped
 */
export async function runWorkerProcess(opts: { settings: Env; concurrency?: number; jobs?: readonly JobDefinition[] }): Promise<void> {
  const env = opts.settings;
  // Repeated warnings (a scheduler tick failing every 2 s through an outage) are written once, then counted.
  const logger = createLogger(collapseRepeats(consoleSink()), { level: env.LOG_LEVEL, fields: { proc: 'worker' } });
  // The queue library completes and fails jobs without awaiting: in an outage those writes reject
  // with nobody listening. An expected condition, counted in one line a minute, not a crash.
  process.on('unhandledRejection', (e) => {
    if (isDatabaseUnavailable(e)) { logger.warn('a background write failed: database unreachable'); return; }
    throw e; // anything else ends the process, as Node does by default (serve restarts the worker)
  });
  // The queue's schema is installed by the tables' owner (a no-op when `serve` already did); the worker runs as the application role.
  // Without DATABASE_URL the worker starts (owns, supervises) the data folder's database: refused when another process owns it.
  const { url, embedded } = await connectDatabase(env, {
    log: (m) => logger.info(m), exclusive: true, supervise: true, command: 'tributary worker', setup: installQueue,
    onSupervisor: (level, m) => logger[level](m, { dataDir: env.dataDir }),
  });
  const pool = createPool(url, { max: 20, application: 'tributary-worker' });
  // SIGTERM drains (running jobs finish, none are taken; a second signal stops at once); SIGINT stops at once.
  // Listened for before the worker starts: it may claim a job before startWorker returns.
  const signalled = new Promise<'drain' | 'stop'>((resolve) => {
    process.once('SIGINT', () => resolve('stop'));
    process.once('SIGTERM', () => resolve('drain'));
  });
  const jobs = createJobRegistry(opts.jobs ?? jobDefinitions);
  // OpenLineage events (OPENLINEAGE_URL or the file transport); none when unset.
  const lineage = lineageFromEnv(env, logger.child({ scope: 'openlineage' }));
  const worker = await startWorker({
    jobs,
    pool, env, logger, concurrency: opts.concurrency,
    staleAfterMs: env.TRIBUTARY_JOB_STALE_SECONDS * 1000,
    echo: env.LOG_LEVEL === 'debug' ? consoleSink() : undefined,
    lineage,
  });
  // Every worker runs the flow scheduler: one of them leads (fires schedules, checks freshness and CDC lag), all advance flow runs.
  const sources = freshnessSources(env);
  const scheduler = startFlowScheduler({
    pool, url, catalog: { jobs, env }, logger: logger.child({ scope: 'flows' }),
    publicUrl: publicUrl(env),
    lineage,
    leaderTasks: [
      freshnessLeaderTask({ pool, catalog: { jobs, env }, logger: logger.child({ scope: 'freshness' }), publicUrl: publicUrl(env), load: () => loadFreshnessConfig(sources) }),
      // the lag alert mails the freshness alerts' recipients (tables.json `freshness_alerts`)
      cdcLagLeaderTask({
        pool, catalog: { jobs, env }, logger: logger.child({ scope: 'cdc' }), publicUrl: publicUrl(env), thresholdBytes: env.TRIBUTARY_CDC_LAG_ALERT_BYTES,
        sources: () => branchSources({ pool, env }), loadAlerts: async () => (await loadFreshnessConfig(sources)).alerts,
      }),
    ],
  });
  const how = await signalled;
  embedded?.stopSupervising(); // the signal reached its PostgreSQL too: that exit is no fault
  await scheduler.stop();
  if (how === 'drain') {
    const again = () => { void worker.stop(); };
    process.once('SIGTERM', again);
    process.once('SIGINT', again);
    await worker.drain({ timeoutMs: env.TRIBUTARY_DRAIN_SECONDS * 1000 });
  } else {
    await worker.stop();
  }
  await lineage?.flush(5000); // the last runs' events, briefly: an endpoint that is down must not hold the exit
  // Shutdown: the process is about to exit, a failing close changes nothing.
  await pool.end().catch(() => {});
  await embedded?.stop();
}
