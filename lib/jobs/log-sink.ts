import type pg from 'pg';
import type { LogRecord, Sink } from '../log';
import { logRow } from './finish-run';

/**
 * A log sink that stores a run's lines in job_logs, batched: lines are written
 * every `flushMs` (and on flush()), so a chatty job does not do one INSERT per line.
 */
export function jobLogSink(pool: pg.Pool, runId: string, opts: { flushMs?: number; echo?: Sink } = {}): {
  sink: Sink; flush(): Promise<void>; close(): Promise<void>;
  /** Stop the timer, wait for writes under way, and hand back the lines not written (the caller writes them with the run's end). */
  drain(): Promise<LogRecord[]>;
} {
  let buf: LogRecord[] = [];
  let writing: Promise<void> = Promise.resolve();
  const write = async () => {
    if (!buf.length) return;
    const batch = buf; buf = [];
    const values: unknown[] = [];
    const rows = batch.map((rec, i) => {
      const r = logRow(rec);
      values.push(runId, r.ts, r.level, r.message, r.fields ? JSON.stringify(r.fields) : null);
      const b = i * 5;
      return `($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5})`;
    });
    await pool.query(`insert into job_logs (run_id, ts, level, message, fields) values ${rows.join(',')}`, values).catch(() => {
      // Log lines are best effort: a failed insert must not fail the job it describes
      // (the run's status and error are written separately, and retried by the reaper).
    });
  };
  const flush = () => (writing = writing.then(write));
  const timer = setInterval(() => void flush(), opts.flushMs ?? 300);
  timer.unref();
  return {
    sink: (r) => { buf.push(r); opts.echo?.(r); },
    flush,
    close: async () => { clearInterval(timer); await flush(); },
    drain: async () => {
      clearInterval(timer);
      await writing;
      const rest = buf; buf = [];
      return rest;
    },
  };
}
