import type { Logger } from '../log';
import { loadOracle } from './oracle-driver';
import type { QueryOptions, SourceExecutor, StatementLogEntry, TimedFetch } from './source-executor';

export interface OracleSourceConfig {
  user: string; password: string; connectString: string;
  /** Instant Client dir for thick mode (resolved by the caller). (Default: none) */
  clientLibDir?: string;
  /** (Default: auto, see loadOracle) */
  driverMode?: 'auto' | 'thick' | 'thin';
}

/**
 * An Oracle SourceExecutor on one session. Read-only statements run as
 * `SET TRANSACTION READ ONLY` + statement + COMMIT; every call carries a
 * callTimeout. Not exercised here (no Oracle server): the SQL it sends is
 * tested as text in oracle-sql.test.ts.
 */
export async function createOracleExecutor(cfg: OracleSourceConfig, opts: { defaultTimeoutMs?: number; logger?: Logger; log?: StatementLogEntry[] } = {}): Promise<SourceExecutor> {
  const { oracledb } = loadOracle({ clientLibDir: cfg.clientLibDir, mode: cfg.driverMode, logger: opts.logger });
  const defaultTimeoutMs = opts.defaultTimeoutMs ?? 60_000;
  const log = opts.log ?? [];
  const conn = await oracledb.getConnection({ user: cfg.user, password: cfg.password, connectString: cfg.connectString });
  const lower = (row: Record<string, unknown>) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k.toLowerCase(), v]));

  const exec: SourceExecutor = {
    engine: 'oracle',
    log,
    async query<T>(sql: string, params: unknown[], o: QueryOptions): Promise<T[]> {
      const timeoutMs = o.timeoutMs ?? defaultTimeoutMs;
      const readOnly = o.readOnly ?? true;
      const e: StatementLogEntry = { sql, purpose: o.purpose, readOnly, timeoutMs, ms: 0 };
      log.push(e);
      const t0 = performance.now();
      conn.callTimeout = timeoutMs;
      try {
        if (readOnly) await conn.execute('SET TRANSACTION READ ONLY');
        const r = await conn.execute<Record<string, unknown>>(sql, params as unknown[], { outFormat: oracledb.OUT_FORMAT_OBJECT });
        await conn.commit();
        const rows = (r.rows ?? []).map(lower) as T[];
        e.rows = rows.length;
        return rows;
      } catch (err) {
        e.error = (err as Error).message;
        await conn.rollback().catch(() => {}); // the original error is what matters; a failed ROLLBACK means the connection is already gone
        throw err;
      } finally {
        e.ms = performance.now() - t0;
      }
    },
    async timedFetch(sql: string, f: { budgetMs: number; batchRows?: number }): Promise<TimedFetch> {
      const batch = f.batchRows ?? 5000;
      const e: StatementLogEntry = { sql, purpose: 'timing', readOnly: true, timeoutMs: f.budgetMs, ms: 0 };
      log.push(e);
      const t0 = performance.now();
      let rows = 0;
      let bytes = 0;
      let timedOut = false;
      conn.callTimeout = f.budgetMs;
      await conn.execute('SET TRANSACTION READ ONLY');
      const r = await conn.execute<unknown[]>(sql, [], {
        resultSet: true, outFormat: oracledb.OUT_FORMAT_ARRAY,
        // Everything as text: the byte count is what a reader moves.
        fetchTypeHandler: () => ({ type: oracledb.STRING }),
      });
      const rs = r.resultSet!;
      try {
        for (;;) {
          if (performance.now() - t0 >= f.budgetMs) { timedOut = true; break; }
          const got = (await rs.getRows(batch)) as unknown[][];
          for (const row of got) for (const v of row) if (v !== null) bytes += String(v).length;
          rows += got.length;
          if (got.length < batch) break;
        }
      } catch (err) {
        // DPI-1067 / NJS-123: the call timeout fired mid-fetch.
        if (!/DPI-1067|NJS-123|timeout/i.test((err as Error).message)) throw err;
        timedOut = true;
      } finally {
        await rs.close().catch(() => {}); // a read-only cursor: closing or ending it cannot change what was read
        await conn.commit().catch(() => {}); // a read-only cursor: closing or ending it cannot change what was read
        e.ms = performance.now() - t0;
        e.rows = rows;
      }
      return { rows, bytes, ms: performance.now() - t0, timedOut };
    },
    fork: () => createOracleExecutor(cfg, { ...opts, log }),
    close: async () => { await conn.close().catch(() => {}); }, // closing: a failing close changes nothing the caller can act on
  };
  return exec;
}
