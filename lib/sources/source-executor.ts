/**
 * Every statement planning sends to a source goes through a SourceExecutor:
 * read-only, under a timeout, and written to one log. Tests assert on that
 * log (no uncapped scan of the real table); operators can print it.
 */

/** Why a statement was sent (the log groups by it). */
export type Purpose = 'catalog' | 'sample' | 'timing' | 'explain' | 'split' | 'watermark';

export interface StatementLogEntry {
  sql: string;
  purpose: Purpose;
  /** Ran inside a READ ONLY transaction. */
  readOnly: boolean;
  /** Server-side timeout (statement_timeout / callTimeout) it ran under, ms. */
  timeoutMs: number;
  /** Wall-clock duration, ms. */
  ms: number;
  rows?: number;
  error?: string;
}

export interface QueryOptions {
  purpose: Purpose;
  /** Server-side timeout in ms. (Default: the executor's defaultTimeoutMs) */
  timeoutMs?: number;
  /**
   * Run inside a READ ONLY transaction. (Default: true) Only Oracle's
   * DBMS_PARALLEL_EXECUTE task and EXPLAIN PLAN (which write the session's
   * own task/plan rows, never user data) switch it off.
   */
  readOnly?: boolean;
}

export interface TimedFetch {
  rows: number;
  /** Bytes received, as text (what a reader would move over the wire). */
  bytes: number;
  ms: number;
  /** The wall-clock budget ran out before the result was exhausted. */
  timedOut: boolean;
}

export interface SourceExecutor {
  readonly engine: 'postgres' | 'oracle';
  /** Run one statement; rows as objects with lower-case keys. */
  query<T = Record<string, unknown>>(sql: string, params: unknown[], opts: QueryOptions): Promise<T[]>;
  /** Fetch a (row-capped) query's rows in batches until exhausted or `budgetMs` elapses. */
  timedFetch(sql: string, opts: { budgetMs: number; batchRows?: number }): Promise<TimedFetch>;
  /** Another executor on its own session, sharing this one's log (concurrency ramp). */
  fork(): Promise<SourceExecutor>;
  /** Every statement sent so far (shared by forks). */
  readonly log: StatementLogEntry[];
  close(): Promise<void>;
}
