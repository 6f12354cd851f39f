import type pg from 'pg';
import type { Logger } from '../../log';

export type EventKind = 'log' | 'appeared' | 'finished';

/** The run's log: every line to the logger and to slice_run_events (shown by `logs` and the board). */
export interface RunLog {
  info(message: string, f?: { slice?: number; kind?: EventKind; fields?: Record<string, unknown> }): void;
  warn(message: string, f?: { slice?: number; kind?: EventKind; fields?: Record<string, unknown> }): void;
  error(message: string, f?: { slice?: number; kind?: EventKind; fields?: Record<string, unknown> }): void;
  /** Wait for pending writes. */
  flush(): Promise<void>;
}

export function createRunLog(pool: pg.Pool, runId: number, logger: Logger): RunLog {
  const pending = new Set<Promise<unknown>>();
  const write = (level: 'info' | 'warn' | 'error', message: string, f: { slice?: number; kind?: EventKind; fields?: Record<string, unknown> } = {}) => {
    logger[level](message, { runId, ...(f.slice !== undefined ? { slice: f.slice } : {}), ...f.fields });
    const p = pool.query('insert into slice_run_events (run_id, level, kind, slice, message, fields) values ($1, $2, $3, $4, $5, $6)',
      [runId, level, f.kind ?? 'log', f.slice ?? null, message, f.fields ? JSON.stringify(f.fields) : null])
      // The line already went to the logger above; a lost copy in the run's event table must not fail the run.
      .catch((e) => logger.debug('slices: run event not stored', { runId, error: (e as Error).message }));
    pending.add(p);
    void p.finally(() => pending.delete(p));
  };
  return {
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
    flush: async () => { await Promise.all([...pending]); },
  };
}
