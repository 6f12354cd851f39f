import { setMaxListeners } from 'node:events';
import os from 'node:os';
import crypto from 'node:crypto';
import type pg from 'pg';
import type PgBoss from 'pg-boss';
import type { Env } from '../config/env';
import type { Db } from '../db/prisma';
import { createLogger, type Logger, type Sink } from '../log';
import { toError } from '../errors';
import { isDatabaseUnavailable } from '../errors/db-unavailable';
import { retryWhileUnavailable } from '../db/retry-while-unavailable';
import { QUEUE, createBoss } from './queue';
import type { JobRegistry } from './registry';
import { jobLogSink } from './log-sink';
import { reapStaleRuns } from './reaper';
import type { JobContext } from './types';

export interface WorkerOptions {
  /** The job kinds this worker runs, assembled by the process entry point (`workers/jobs.ts`). */
  jobs: JobRegistry;
  pool: pg.Pool;
  prisma: Db;
  env: Env;
  logger: Logger;
  /** Jobs run at once. (Default: env.TRIBUTARY_WORKER_CONCURRENCY) */
  concurrency?: number;
  /** How often a running job's heartbeat, progress and cancel flag are synced. (Default: 2000 ms) */
  heartbeatMs?: number;
  /** A running job whose heartbeat is older than this is failed by any worker. (Default: 30000 ms) */
  staleAfterMs?: number;
  /** Echo job log lines to this sink too (the worker's console). (Default: none) */
  echo?: Sink;
}

export interface WorkerHandle {
  id: string;
  /** Stop now: running jobs are aborted (they stop at their next safe point) and waited for up to `timeoutMs`. (Default: 15000 ms) */
  stop(opts?: { timeoutMs?: number }): Promise<void>;
  /**
   * Drain (SIGTERM): take no new jobs, let the running ones finish for up to
   * `timeoutMs`, then stop as `stop()` does. (Default: 120000 ms)
   */
  drain(opts?: { timeoutMs?: number }): Promise<void>;
}

/** Start a worker: claims jobs from the queue, runs them, heartbeats, reaps dead peers. */
export async function startWorker(o: WorkerOptions): Promise<WorkerHandle> {
  const id = `${os.hostname()}:${process.pid}:${crypto.randomBytes(3).toString('hex')}`;
  const heartbeatMs = o.heartbeatMs ?? 2000;
  const staleAfterMs = o.staleAfterMs ?? 30_000;
  const boss: PgBoss = createBoss(o.pool, { supervise: true });
  await boss.start();
  const running = new Map<string, AbortController>();
  let stopping = false;

  /** Claim one queued run and run it here; false when it was not queued any more (taken, cancelled) or the worker is stopping. */
  const runOne = async (runId: string): Promise<boolean> => {
    if (stopping) return false;
    // Fetched from the queue just before an outage: claim it once the database is back, not lose it.
    const claimed = await retryWhileUnavailable(() => o.pool.query(
      `update job_runs set status = 'running', worker_id = $2, started_at = now(), heartbeat_at = now(), attempts = attempts + 1
        where id = $1 and status = 'queued' returning kind, params`, [runId, id]));
    if (!claimed.rowCount) return false; // cancelled before start, or already handled
    const { kind, params } = claimed.rows[0];
    const logs = jobLogSink(o.pool, runId, { echo: o.echo });
    const logger = createLogger(logs.sink, { level: o.env.LOG_LEVEL, fields: {} });
    const ac = new AbortController();
    // one signal is shared by all of a run's parallel reads (an ETL run's units each listen): not a leak
    setMaxListeners(256, ac.signal);
    running.set(runId, ac);
    let done = 0; let total: number | null = null; let dirty = true;
    let cancelled = false; let lost = false;
    const beat = async () => {
      const fields = dirty ? [done, total] : [null, null];
      dirty = false;
      const r = await o.pool.query(
        `update job_runs set heartbeat_at = now(),
            progress_done = coalesce($3, progress_done), progress_total = coalesce($4, progress_total)
          where id = $1 and worker_id = $2 and status = 'running' returning cancel_requested`,
        [runId, id, ...fields]).catch(() => null); // a missed beat is retried by the next one; the stale limit spans many beats
      if (!r) return;
      if (!r.rowCount) { lost = true; ac.abort(new Error('run was taken away from this worker (reaped)')); return; }
      if (r.rows[0].cancel_requested && !ac.signal.aborted) { cancelled = true; ac.abort(new Error('cancelled by request')); }
    };
    const timer = setInterval(() => void beat(), heartbeatMs);
    const ctx: JobContext = {
      runId, pool: o.pool, prisma: o.prisma, jobs: o.jobs, logger, signal: ac.signal, env: o.env, workerId: id, runInline: runOne,
      progress: (d, t) => { done = d; if (t !== undefined) total = t; dirty = true; },
    };
    let status: 'succeeded' | 'failed' | 'cancelled' = 'succeeded';
    let error: string | null = null;
    let result: unknown = null;
    try {
      const def = o.jobs.get(kind);
      if (!def) throw new Error(`jobs: this worker does not know job kind '${kind}'`);
      const payload = def.payload.parse(params);
      logger.info(`started ${kind}`, { worker: id });
      result = (await def.run(ctx, payload)) ?? null;
      if (cancelled) status = 'cancelled';
    } catch (e) {
      const err = toError(e);
      status = cancelled ? 'cancelled' : 'failed';
      error = cancelled ? 'cancelled by request' : err.message;
      // An engine that failed with a partial outcome (units done and failed) attaches it: keep it on the run.
      const partial = (e as { result?: unknown }).result;
      if (partial !== undefined) result = partial;
      if (!cancelled) {
        logger.error(err.message);
        // Operators read the message; the stack is for whoever debugs the engine.
        if (err.stack) logger.debug('stack', { stack: err.stack.split('\n').slice(1, 8).join(' | ') });
      }
    } finally {
      clearInterval(timer);
    }
    if (status === 'cancelled') logger.warn('cancelled');
    else if (status === 'succeeded') logger.info(`finished ${kind}`);
    await logs.close();
    running.delete(runId);
    if (lost) return true; // another worker already recorded this run's end
    // A run that finished while the database was down records its end when it is back.
    const finish = (st: string, err: string | null, res: unknown) => retryWhileUnavailable(() => o.pool.query(
      `update job_runs set status = $3, error = $4, result = $5, finished_at = now(), heartbeat_at = now(),
              progress_done = $6, progress_total = coalesce($7, progress_total)
        where id = $1 and worker_id = $2 and status = 'running'`,
      [runId, id, st, err, res === null ? null : JSON.stringify(res), done, total]));
    try {
      await finish(status, error, result);
    } catch (e) {
      // A result or message Postgres cannot store (NUL in text or jsonb: 22021 / 22P05) must
      // not leave the run "running" until the reaper calls its worker dead: it fails now, saying why.
      const code = (e as { code?: string }).code;
      if (code !== '22021' && code !== '22P05' && code !== '22P02' && code !== '54000') throw e;
      const why = `jobs: the run's ${status === 'succeeded' ? 'result' : 'outcome'} could not be stored (${(e as Error).message}, SQLSTATE ${code})`;
      const before = error ? `; its error was: ${error.replace(/\u0000/g, '\\0')}` : '';
      o.logger.warn(why, { runId });
      await finish(status === 'cancelled' ? 'cancelled' : 'failed', why + before, null);
    }
    return true;
  };

  const workIds: string[] = [];
  for (let i = 0; i < (o.concurrency ?? o.env.TRIBUTARY_WORKER_CONCURRENCY); i++) {
    workIds.push(await boss.work<{ runId: string }>(QUEUE, { batchSize: 1, pollingIntervalSeconds: 0.5 }, async (jobs) => {
      for (const j of jobs) await runOne(j.data.runId);
    }));
  }

  // Database reachability as the worker's own beat sees it. While the database is down every
  // claim fails (claiming pauses by itself); the worker says so once, not once per poll.
  let dbDownSince: number | null = null;
  let dbBackAt = 0;
  const reap = async () => {
    // Right after an outage every live run's heartbeat is old: give their workers a few beats to
    // write fresh ones before judging anyone dead.
    if (dbDownSince !== null || Date.now() - dbBackAt < Math.max(3 * heartbeatMs, 10_000)) return;
    try {
      const ids = await reapStaleRuns(o.pool, boss, staleAfterMs);
      for (const r of ids) o.logger.warn('failed a run whose worker stopped heartbeating', { runId: r });
    } catch { /* next round */ }
  };
  const reaper = setInterval(() => void reap(), Math.max(1000, Math.floor(staleAfterMs / 3)));
  void reap();
  // The worker's own row in `workers` (the Overview's "workers alive"), beating while idle too.
  const alive = () => o.pool.query(
    `insert into workers (id, hostname, pid, concurrency) values ($1, $2, $3, $4)
       on conflict (id) do update set heartbeat_at = now()`, [id, os.hostname(), process.pid, workIds.length])
    .then(() => {
      if (dbDownSince === null) return;
      o.logger.info(`database reachable again after ${Math.round((Date.now() - dbDownSince) / 1000)} s: claiming resumed`, { worker: id });
      dbDownSince = null;
      dbBackAt = Date.now();
    }, (e) => {
      // a missed beat is retried by the next one
      if (dbDownSince === null && isDatabaseUnavailable(e)) {
        dbDownSince = Date.now();
        o.logger.warn('database unreachable: claiming paused until it is back', { worker: id, error: toError(e).message });
      }
    });
  await alive();
  const aliveTimer = setInterval(() => void alive(), heartbeatMs);
  o.logger.info('worker started', { worker: id, concurrency: workIds.length });

  const shutdown = async (graceMs: number, timeoutMs: number) => {
    if (stopping) return;
    stopping = true;
    clearInterval(reaper);
    clearInterval(aliveTimer);
    // The queue's workers stop fetching (offWork takes the queue's name); a queue that already stopped has none.
    await boss.offWork(QUEUE).catch(() => {});
    const sleep = () => new Promise((r) => setTimeout(r, 100));
    const graceUntil = Date.now() + graceMs;
    while (running.size && Date.now() < graceUntil) await sleep();
    for (const ac of running.values()) ac.abort(new Error('worker stopping'));
    const until = Date.now() + timeoutMs;
    while (running.size && Date.now() < until) await sleep();
    // Runs that did not stop in time stay 'running' without heartbeats and
    // are failed by the next worker's reaper.
    await boss.stop({ graceful: true, close: false, wait: true, timeout: 2000 }).catch((e) => o.logger.warn('jobs: queue did not stop cleanly', { error: (e as Error).message }));
    await o.pool.query('delete from workers where id = $1', [id]).catch(() => null); // a dead row ages out on the Overview
    o.logger.info('worker stopped', { worker: id });
  };

  return {
    id,
    stop: ({ timeoutMs = 15_000 } = {}) => shutdown(0, timeoutMs),
    drain: async ({ timeoutMs = 120_000 } = {}) => {
      if (!stopping) o.logger.info('worker draining: finishing running jobs, taking no new ones', { worker: id, running: running.size });
      await shutdown(timeoutMs, 15_000);
    },
  };
}
