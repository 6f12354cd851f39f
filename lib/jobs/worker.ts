import { setMaxListeners } from 'node:events';
import os from 'node:os';
import crypto from 'node:crypto';
import type pg from 'pg';
import type PgBoss from 'pg-boss';
import type { Env } from '../config/env';
import { createLogger, type Logger, type Sink } from '../log';
import { toError, AppError } from '../errors';
import { isDatabaseUnavailable } from '../errors/db-unavailable';
import { retryWhileUnavailable } from '../db/retry-while-unavailable';
import { QUEUE, createBoss } from './queue';
import type { JobRegistry } from './registry';
import { jobLogSink } from './log-sink';
import { reapStaleRuns } from './reaper';
import { listenForJobs } from './wake';
import { releaseRuns } from './release-runs';
import { claimRuns, type ClaimedRun } from './claim-runs';
import { finishRun } from './finish-run';
import { OUTAGE_ATTEMPTS, requeueRun } from './requeue-run';
import { pruneIdempotencyKeys } from './idempotency';
import type { JobContext } from './types';
import type { LineageDataset, LineageEmitter } from '../lineage';
import { flowParentOf } from './lineage-parent';

export interface WorkerOptions {
  /** The job kinds this worker runs, assembled by the process entry point (`workers/jobs.ts`). */
  jobs: JobRegistry;
  pool: pg.Pool;
  env: Env;
  logger: Logger;
  /** Jobs run at once. (Default: env.TRIBUTARY_WORKER_CONCURRENCY) */
  concurrency?: number;
  /** How often a running job's heartbeat, progress and cancel flag are synced. (Default: 2000 ms) */
  heartbeatMs?: number;
  /** A running job whose heartbeat is older than this is failed by any worker. (Default: 30000 ms) */
  staleAfterMs?: number;
  /**
   * Longest wait between two looks at an empty queue. Enqueueing notifies
   * workers (LISTEN/NOTIFY), so this only bounds how late a missed
   * notification is noticed. (Default: 2000 ms)
   */
  pollMs?: number;
  /**
   * Called each time a look at the queue finds nothing to run, just before the
   * worker waits (graphile-worker's `worker:getJob:empty` event): a test waits
   * on it instead of guessing how long the worker takes to fall asleep. (Default: none)
   */
  onQueueEmpty?: () => void;
  /** Echo job log lines to this sink too (the worker's console). (Default: none) */
  echo?: Sink;
  /** Sends OpenLineage events for the kinds that declare `lineage` (lib/lineage, built from the environment by workers/main.ts). (Default: none) */
  lineage?: LineageEmitter | null;
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

/** What running one claimed run needs of its worker. */
interface RunHost {
  o: WorkerOptions;
  /** The worker's id (`host:pid:hex`). */
  id: string;
  heartbeatMs: number;
  /** Runs in progress here, by id: `stop()` aborts them. */
  running: Map<string, AbortController>;
  /** Claim and run another queued run here (a job's `runInline`). */
  runOne(runId: string): Promise<boolean>;
}

/** Run a run this worker has claimed, heartbeating, and write its end. */
async function executeRun(h: RunHost, { runId, kind, params, attempts, queueJobId }: Omit<ClaimedRun, 'queueJobId'> & { queueJobId: string | null }): Promise<void> {
  const { o, id, heartbeatMs, running } = h;
  const logs = jobLogSink(o.pool, runId, { echo: o.echo });
  const logger = createLogger(logs.sink, { level: o.env.LOG_LEVEL, fields: {} });
  const ac = new AbortController();
  // one signal is shared by all of a run's parallel reads (an ETL run's units each listen): not a leak
  setMaxListeners(256, ac.signal);
  running.set(runId, ac);
  let done = 0; let total: number | null = null; let dirty = true;
  let cancelled = false;
  const beat = async () => {
    const fields = dirty ? [done, total] : [null, null];
    dirty = false;
    const r = await o.pool.query(
      `update job_runs set heartbeat_at = now(),
          progress_done = coalesce($3, progress_done), progress_total = coalesce($4, progress_total)
        where id = $1 and worker_id = $2 and status = 'running' returning cancel_requested`,
      [runId, id, ...fields]).catch(() => null); // a missed beat is retried by the next one; the stale limit spans many beats
    if (!r) return;
    if (!r.rowCount) { ac.abort(new Error('run was taken away from this worker (reaped)')); return; }
    if (r.rows[0].cancel_requested && !ac.signal.aborted) { cancelled = true; ac.abort(new Error('cancelled by request')); }
  };
  const timer = setInterval(() => void beat(), heartbeatMs);
  // OpenLineage: START now, COMPLETE / FAIL / ABORT with the datasets the handler reported once it ends
  // (a run requeued by a database outage ends in its next attempt, which starts again under the same runId).
  const lineageType = o.lineage ? o.jobs.get(kind)?.lineage?.jobType : undefined;
  const datasets = { inputs: [] as LineageDataset[], outputs: [] as LineageDataset[] };
  const parent = lineageType ? await flowParentOf(o.pool, runId).catch(() => null) : null;
  if (lineageType) o.lineage!.emit({ eventType: 'START', runId, jobName: kind, jobType: lineageType, parent: parent ?? undefined });
  const ctx: JobContext = {
    runId, pool: o.pool, jobs: o.jobs, logger, signal: ac.signal, env: o.env, workerId: id, runInline: h.runOne,
    progress: (d, t) => { done = d; if (t !== undefined) total = t; dirty = true; },
    reportLineage: lineageType ? (d) => { datasets.inputs.push(...d.inputs); datasets.outputs.push(...d.outputs); } : undefined,
  };
  let status: 'succeeded' | 'failed' | 'cancelled' = 'succeeded';
  let error: string | null = null;
  let result: unknown = null;
  let outage = false;
  try {
    const def = o.jobs.get(kind);
    if (!def) throw new AppError('fatal', `jobs: this worker does not know job kind '${kind}'`);
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
    outage = !cancelled && queueJobId !== null && attempts < OUTAGE_ATTEMPTS && isDatabaseUnavailable(e);
    if (outage) logger.warn(`the database went away during the run: ${err.message}; it runs again once the database is back (attempt ${attempts + 1} of at most ${OUTAGE_ATTEMPTS})`);
    else if (!cancelled) {
      logger.error(err.message);
      // Operators read the message; the stack is for whoever debugs the engine.
      if (err.stack) logger.debug('stack', { stack: err.stack.split('\n').slice(1, 8).join(' | ') });
    }
  } finally {
    clearInterval(timer);
  }
  if (status === 'cancelled') logger.warn('cancelled');
  else if (status === 'succeeded') logger.info(`finished ${kind}`);
  if (lineageType && !outage) {
    o.lineage!.emit({
      eventType: status === 'succeeded' ? 'COMPLETE' : status === 'failed' ? 'FAIL' : 'ABORT',
      runId, jobName: kind, jobType: lineageType, parent: parent ?? undefined, ...datasets, error: error ?? undefined,
    });
  }
  const rest = await logs.drain();
  running.delete(runId);
  // A run felled by an outage goes back to the queue (attempts left); otherwise it ends as it ended.
  if (outage && queueJobId && await retryWhileUnavailable(() => requeueRun(o.pool, { runId, workerId: id, queueJobId, logs: rest }))) return;
  // Its last log lines, its end (unless reaped: another worker recorded that) and its queue job's completion, at once;
  // a run that finished while the database was down records its end when it is back.
  const finish = (st: typeof status, err: string | null, res: unknown) => retryWhileUnavailable(() => finishRun(o.pool, {
    runId, workerId: id, status: st, error: err, result: res, progressDone: done, progressTotal: total, queueJobId, logs: rest,
  }));
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
}

/**
 * Database reachability as the worker's own beat sees it. While the database is down every
 * claim fails (claiming pauses by itself); the worker says so once, not once per poll.
 */
interface Reachability { downSince: number | null; backAt: number }

/** Fail (or, for resumable kinds, queue again) the runs of workers that stopped heartbeating, and prune expired Idempotency-Keys. */
async function reapDeadPeers(o: WorkerOptions, boss: PgBoss, t: { staleAfterMs: number; heartbeatMs: number }, reach: Reachability): Promise<void> {
  // Right after an outage every live run's heartbeat is old: give their workers a few beats to
  // write fresh ones before judging anyone dead.
  if (reach.downSince !== null || Date.now() - reach.backAt < Math.max(3 * t.heartbeatMs, 10_000)) return;
  try {
    const resumeKinds = o.jobs.all.filter((d) => d.resumeOnWorkerLoss).map((d) => d.kind);
    const { failed, resumed } = await reapStaleRuns(o.pool, boss, t.staleAfterMs, { resumeKinds });
    for (const r of failed) o.logger.warn('failed a run whose worker stopped heartbeating', { runId: r });
    for (const r of resumed) o.logger.warn('queued again a run whose worker stopped heartbeating, for another worker to take over', { runId: r });
    // Expired Idempotency-Keys are ignored already; deleting them keeps the table at a day's keys.
    await pruneIdempotencyKeys(o.pool);
  } catch { /* next round */ }
}

/** The worker's own row in `workers` (the Overview's "workers alive"), beating while idle too; tracks reachability. */
async function beatAlive(o: WorkerOptions, id: string, slots: number, reach: Reachability): Promise<void> {
  try {
    await o.pool.query(
      `insert into workers (id, hostname, pid, concurrency) values ($1, $2, $3, $4)
         on conflict (id) do update set heartbeat_at = now()`, [id, os.hostname(), process.pid, slots]);
  } catch (e) {
    // a missed beat is retried by the next one
    if (reach.downSince === null && isDatabaseUnavailable(e)) {
      reach.downSince = Date.now();
      o.logger.warn('database unreachable: claiming paused until it is back', { worker: id, error: toError(e).message });
    }
    return;
  }
  if (reach.downSince === null) return;
  o.logger.info(`database reachable again after ${Math.round((Date.now() - reach.downSince) / 1000)} s: claiming resumed`, { worker: id });
  reach.downSince = null;
  reach.backAt = Date.now();
}

/** Start a worker: claims jobs from the queue, runs them, heartbeats, reaps dead peers. */
export async function startWorker(o: WorkerOptions): Promise<WorkerHandle> {
  const id = `${os.hostname()}:${process.pid}:${crypto.randomBytes(3).toString('hex')}`;
  const heartbeatMs = o.heartbeatMs ?? 2000;
  const staleAfterMs = o.staleAfterMs ?? 30_000;
  const boss: PgBoss = createBoss(o.pool, { supervise: true, logger: o.logger });
  await boss.start();
  const running = new Map<string, AbortController>();
  let stopping = false;

  /** Claim one queued run and run it here; false when it was not queued any more (taken, cancelled) or the worker is stopping. */
  const runOne = async (runId: string): Promise<boolean> => {
    if (stopping) return false;
    // Fetched from the queue just before an outage: claim it once the database is back, not lose it.
    const claimed = await retryWhileUnavailable(() => o.pool.query(
      `update job_runs set status = 'running', worker_id = $2, started_at = now(), heartbeat_at = now(), attempts = attempts + 1
        where id = $1 and status = 'queued' returning kind, params, attempts`, [runId, id]));
    if (!claimed.rowCount) return false; // cancelled before start, or already handled
    await execute({ runId, kind: claimed.rows[0].kind, params: claimed.rows[0].params, attempts: claimed.rows[0].attempts, queueJobId: null });
    return true;
  };

  const execute = (run: Parameters<typeof executeRun>[1]) => executeRun({ o, id, heartbeatMs, running, runOne }, run);

  // The claim loop: fetch as many queue jobs as there are free slots, start
  // each at once, and fetch again as soon as a slot frees or a notification
  // says a job was queued. It sleeps (up to `pollMs`) only when the queue was
  // empty: pg-boss's own work() waits its polling interval after every batch,
  // which held a worker to a few jobs per second whatever the jobs cost.
  const slots = o.concurrency ?? o.env.TRIBUTARY_WORKER_CONCURRENCY;
  const pollMs = o.pollMs ?? 2000;
  let free = slots;
  let woken = false;
  let wakeUp: (() => void) | null = null;
  const wake = () => { woken = true; wakeUp?.(); };
  const sleep = (ms: number) => new Promise<void>((resolve) => {
    if (woken || stopping) { resolve(); return; }
    const t = setTimeout(() => { wakeUp = null; resolve(); }, ms);
    wakeUp = () => { clearTimeout(t); wakeUp = null; resolve(); };
  });
  const finished = new Set<Promise<void>>();
  const start = (run: ClaimedRun) => {
    free--;
    const p = execute(run).catch(async (e) => {
      // The run's end could not be written (database gone): the reaper fails the run once its heartbeat is stale.
      o.logger.warn('jobs: could not record the end of a run', { runId: run.runId, error: toError(e).message });
      await boss.fail(QUEUE, run.queueJobId, { reason: toError(e).message }).catch(() => {});
    }).finally(() => { free++; finished.delete(p); wake(); });
    finished.add(p);
  };
  const claimLoop = async () => {
    let failures = 0;
    while (!stopping) {
      if (free <= 0) { woken = false; await sleep(pollMs); continue; }
      woken = false;
      let batch: Awaited<ReturnType<typeof claimRuns>>;
      try {
        batch = await claimRuns(o.pool, id, free);
        failures = 0;
      } catch (e) {
        failures++;
        if (failures === 1) o.logger.warn('jobs: could not claim from the queue; retrying', { error: toError(e).message });
        await sleep(Math.min(30_000, pollMs * failures));
        continue;
      }
      // Queue jobs whose run was cancelled or taken inline before it started: nothing to run.
      if (batch.stale.length) await boss.complete(QUEUE, batch.stale).catch(() => {}); // left active, pg-boss's expiry ends them
      if (stopping) {
        await releaseRuns(o.pool, id, batch.runs)
          .catch((e) => o.logger.warn('jobs: could not hand claimed runs back to the queue', { error: toError(e).message }));
        break;
      }
      for (const r of batch.runs) start(r);
      // Slots left after a full batch: more may be waiting, claim again at once.
      if (!batch.runs.length && !batch.stale.length) { o.onQueueEmpty?.(); await sleep(pollMs); }
    }
  };
  const listener = listenForJobs(o.pool, wake);
  const looping = claimLoop();

  const reach: Reachability = { downSince: null, backAt: 0 };
  const reap = () => reapDeadPeers(o, boss, { staleAfterMs, heartbeatMs }, reach);
  const reaper = setInterval(() => void reap(), Math.max(1000, Math.floor(staleAfterMs / 3)));
  void reap();
  const alive = () => beatAlive(o, id, slots, reach);
  await alive();
  const aliveTimer = setInterval(() => void alive(), heartbeatMs);
  o.logger.info('worker started', { worker: id, concurrency: slots });

  const shutdown = async (graceMs: number, timeoutMs: number) => {
    if (stopping) return;
    stopping = true;
    clearInterval(reaper);
    clearInterval(aliveTimer);
    // The claim loop stops fetching (a batch fetched meanwhile goes back to the queue).
    wake();
    await looping;
    await listener.stop();
    const sleep = () => new Promise((r) => setTimeout(r, 100));
    const graceUntil = Date.now() + graceMs;
    while (running.size && Date.now() < graceUntil) await sleep();
    for (const ac of running.values()) ac.abort(new Error('worker stopping'));
    const until = Date.now() + timeoutMs;
    while (running.size && Date.now() < until) await sleep();
    if (!running.size) await Promise.all(finished);
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
