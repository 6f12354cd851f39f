import os from 'node:os';
import crypto from 'node:crypto';
import type pg from 'pg';
import { toError } from '../errors';
import { createLogger, type Level, type Logger } from '../log';
import { redactSecrets } from '../log/secret-scan';
import { jobLogSink } from './log-sink';

/** What a CLI command hands `recordCliRun`. */
export interface CliRunOptions {
  /** The job kind this command corresponds to (`etl.run`, `dq.check`, …), as the Runs page filters by kind. */
  kind: string;
  /** The parsed request only: never the CLI's transient connections or other shell-only options. */
  params: unknown;
  /** Who started it. (Default: `cli`) */
  createdBy?: string;
  /** The console logger the command already uses; lines go there and to the run's log. */
  logger: Logger;
  /** Least level stored in the run's log. (Default: info) */
  level?: Level;
  /** How often the run heartbeats and syncs its progress. (Default: 2000 ms) */
  heartbeatMs?: number;
}

/**
 * The stored outcome of a command's value: its result, and an error when the
 * value itself says it failed (an ETL summary with failed units).
 */
export type CliRunOutcome<T> = (value: T) => { result?: unknown; error?: string | null };

/** What the wrapped command body is handed: the run's id, a logger that also stores lines, and progress. */
export interface CliRun {
  runId: string;
  logger: Logger;
  progress(done: number, total?: number): void;
}

/** A logger writing to both: the console the operator watches and the run's stored log. */
function teeLogger(a: Logger, b: Logger): Logger {
  return {
    debug: (m, f) => { a.debug(m, f); b.debug(m, f); },
    info: (m, f) => { a.info(m, f); b.info(m, f); },
    warn: (m, f) => { a.warn(m, f); b.warn(m, f); },
    error: (m, f) => { a.error(m, f); b.error(m, f); },
    child: (f) => teeLogger(a.child(f), b.child(f)),
  };
}

/**
 * Run an engine command in this process and record it as a job run
 * (`source: cli`), so it shows on the Runs page live like a worker's run: a
 * `running` row owned by `cli:<host>:<pid>`, heartbeated, with its log lines
 * and progress, ended `succeeded` or `failed` with the error. A killed CLI
 * stops heartbeating and the workers' reaper fails the run like a dead worker's.
 * The command's own value or error passes through unchanged. (Default outcome: the value, no error)
 */
export async function recordCliRun<T>(pool: pg.Pool, o: CliRunOptions, fn: (run: CliRun) => Promise<T>, outcome?: CliRunOutcome<T>): Promise<T> {
  const runId = crypto.randomUUID();
  const workerId = `cli:${os.hostname()}:${process.pid}`;
  await pool.query(
    `insert into job_runs (id, kind, params, status, created_by, source, worker_id, attempts, started_at, heartbeat_at)
     values ($1, $2, $3, 'running', $4, 'cli', $5, 1, now(), now())`,
    [runId, o.kind, JSON.stringify(redactSecrets(o.params ?? {})), o.createdBy ?? 'cli', workerId],
  );
  const logs = jobLogSink(pool, runId);
  const store = createLogger(logs.sink, { level: o.level ?? 'info' });
  const logger = teeLogger(o.logger, store);
  let done = 0; let total: number | null = null;
  const beat = () => pool.query(
    `update job_runs set heartbeat_at = now(), progress_done = $2, progress_total = coalesce($3, progress_total)
      where id = $1 and status = 'running'`, [runId, done, total]).catch(() => {}); // the next beat retries; the stale limit spans many
  const timer = setInterval(() => void beat(), o.heartbeatMs ?? 2000);
  timer.unref();
  let status: 'succeeded' | 'failed' = 'succeeded';
  let error: string | null = null;
  let result: unknown = null;
  try {
    const value = await fn({ runId, logger, progress: (d, t) => { done = d; if (t !== undefined) total = t; } });
    const out = outcome ? outcome(value) : { result: value };
    result = out.result ?? null;
    if (out.error) { status = 'failed'; error = out.error; store.error(out.error); }
    return value;
  } catch (e) {
    const err = toError(e);
    status = 'failed';
    error = err.message;
    const partial = (e as { result?: unknown }).result;
    if (partial !== undefined) result = partial;
    // The stored log shows the message, the stack only at debug level; the console
    // prints what the command itself prints of it.
    store.error(err.message);
    if (err.stack) store.debug('stack', { stack: err.stack.split('\n').slice(1, 8).join(' | ') });
    throw e;
  } finally {
    clearInterval(timer);
    await logs.close();
    await pool.query(
      `update job_runs set status = $2, error = $3, result = $4, finished_at = now(), heartbeat_at = now(),
              progress_done = $5, progress_total = coalesce($6, progress_total)
        where id = $1 and status = 'running'`,
      [runId, status, error, result === null ? null : JSON.stringify(result, (_, v) => (typeof v === 'bigint' ? v.toString() : v)), done, total],
    ).catch((e) => o.logger.warn('jobs: could not record the end of this CLI run', { runId, error: (e as Error).message }));
  }
}
