import type pg from 'pg';
import type { Logger } from '../log';
import { createPgClient, type PgConnectConfig } from '../db/pg-connect';
import type { QueryOptions, SourceExecutor, StatementLogEntry, TimedFetch } from './source-executor';

// Values as the server's text: byte counts reflect what crosses the wire.
const RAW_TYPES = { getTypeParser: () => (v: string) => v };

export interface PgExecutorOptions {
  /** statement_timeout for each statement, ms. (Default: 60000) */
  defaultTimeoutMs?: number;
  logger?: Logger;
  /** Log to share (forks pass theirs). (Default: a new array) */
  log?: StatementLogEntry[];
}

/**
 * A PostgreSQL SourceExecutor on one session. The session is read-only by
 * default (default_transaction_read_only) and every statement runs in its
 * own `BEGIN; SET TRANSACTION READ ONLY; SET LOCAL statement_timeout`.
 */
export async function createPgExecutor(source: string | PgConnectConfig, opts: PgExecutorOptions = {}): Promise<SourceExecutor> {
  const defaultTimeoutMs = opts.defaultTimeoutMs ?? 60_000;
  const log = opts.log ?? [];
  const client = createPgClient({
    ...(typeof source === 'string' ? { connectionString: source } : source),
    application_name: 'tributary-slices-planning',
    options: '-c default_transaction_read_only=on',
    connectionTimeoutMillis: 10_000,
  });
  client.on('error', () => {});
  await client.connect();

  const begin = (timeoutMs: number) => client.query(`BEGIN; SET TRANSACTION READ ONLY; SET LOCAL statement_timeout = ${Math.max(1, Math.floor(timeoutMs))}`);

  async function logged<T>(entry: Omit<StatementLogEntry, 'ms'>, body: () => Promise<T & { rowCount?: number | null }>): Promise<T> {
    const t0 = performance.now();
    const e: StatementLogEntry = { ...entry, ms: 0 };
    log.push(e);
    try {
      const r = await body();
      e.rows = r.rowCount ?? undefined;
      return r;
    } catch (err) {
      e.error = (err as Error).message;
      throw err;
    } finally {
      e.ms = performance.now() - t0;
      opts.logger?.debug('slices: source statement', { purpose: e.purpose, ms: Math.round(e.ms), sql: e.sql.slice(0, 300) });
    }
  }

  const exec: SourceExecutor = {
    engine: 'postgres',
    log,
    async query<T>(sql: string, params: unknown[], q: QueryOptions): Promise<T[]> {
      const timeoutMs = q.timeoutMs ?? defaultTimeoutMs;
      // Postgres planning never needs a writable transaction.
      await begin(timeoutMs);
      try {
        const r = await logged({ sql, purpose: q.purpose, readOnly: true, timeoutMs }, () => client.query(sql, params));
        await client.query('COMMIT');
        return r.rows as T[];
      } catch (e) {
        await client.query('ROLLBACK').catch(() => {}); // the original error is what matters; a failed ROLLBACK means the connection is already gone
        throw e;
      }
    },
    async timedFetch(sql: string, f: { budgetMs: number; batchRows?: number }): Promise<TimedFetch> {
      const batch = f.batchRows ?? 5000;
      const t0 = performance.now();
      let rows = 0;
      let bytes = 0;
      let timedOut = false;
      await begin(f.budgetMs);
      try {
        await logged({ sql: `DECLARE tributary_probe NO SCROLL CURSOR FOR ${sql}`, purpose: 'timing', readOnly: true, timeoutMs: f.budgetMs },
          () => client.query(`DECLARE tributary_probe NO SCROLL CURSOR FOR ${sql}`));
        for (;;) {
          const left = f.budgetMs - (performance.now() - t0);
          if (left <= 0) { timedOut = true; break; }
          await client.query(`SET LOCAL statement_timeout = ${Math.max(1, Math.floor(left))}`);
          let r: pg.QueryResult<unknown[]>;
          try {
            r = await client.query({ text: `FETCH FORWARD ${batch} FROM tributary_probe`, rowMode: 'array', types: RAW_TYPES });
          } catch (e) {
            if ((e as { code?: string }).code === '57014') { timedOut = true; break; }
            throw e;
          }
          for (const row of r.rows) for (const v of row) if (v !== null) bytes += (v as string).length;
          rows += r.rows.length;
          if (r.rows.length < batch) break;
        }
      } finally {
        await client.query('ROLLBACK').catch(() => {}); // the original error is what matters; a failed ROLLBACK means the connection is already gone
      }
      return { rows, bytes, ms: performance.now() - t0, timedOut };
    },
    fork: () => createPgExecutor(source, { ...opts, log }),
    close: async () => { await client.end().catch(() => {}); }, // closing: a failing close changes nothing the caller can act on
  };
  return exec;
}
