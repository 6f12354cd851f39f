import type { Logger } from '../../../log';
import type { QueryOptions, SourceExecutor, StatementLogEntry, TimedFetch } from '../executor';

export interface OracleSourceConfig { user: string; password: string; connectString: string }

/* eslint-disable @typescript-eslint/no-explicit-any */
// The few node-oracledb calls used here (the package ships no type declarations).
interface OraConnection {
  callTimeout: number;
  execute(sql: string, binds?: unknown, opts?: Record<string, unknown>): Promise<{ rows?: unknown[]; resultSet?: { getRows(n: number): Promise<unknown[]>; close(): Promise<void> } }>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
  close(): Promise<void>;
}
interface OracleDb {
  initOracleClient(opts?: unknown): void;
  getConnection(cfg: Record<string, unknown>): Promise<OraConnection>;
  OUT_FORMAT_OBJECT: number;
  OUT_FORMAT_ARRAY: number;
  STRING: number;
}

let driver: OracleDb | undefined;
/** The driver is loaded on first use only: Postgres-only installs never touch it. */
async function loadDriver(): Promise<OracleDb> {
  // @ts-ignore -- oracledb has no bundled types
  driver ??= ((await import('oracledb')) as any).default as OracleDb;
  return driver;
}

let thickTried = false;
/** Thick mode (Instant Client) reaches Oracle 11g; thin mode needs 12.1+. Tried once per process. */
function tryThick(oracledb: OracleDb, logger?: Logger) {
  if (thickTried) return;
  thickTried = true;
  try { oracledb.initOracleClient(); } catch (e) {
    logger?.warn('slices: Oracle thick mode unavailable, using thin mode (Oracle 12.1+ only)', { error: (e as Error).message });
  }
}

/**
 * An Oracle SourceExecutor on one session. Read-only statements run as
 * `SET TRANSACTION READ ONLY` + statement + COMMIT; every call carries a
 * callTimeout. Not exercised here (no Oracle server): the SQL it sends is
 * tested as text in oracle-sql.test.ts.
 */
export async function createOracleExecutor(cfg: OracleSourceConfig, opts: { defaultTimeoutMs?: number; logger?: Logger; log?: StatementLogEntry[] } = {}): Promise<SourceExecutor> {
  const oracledb = await loadDriver();
  tryThick(oracledb, opts.logger);
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
        const r = await conn.execute(sql, params, { outFormat: oracledb.OUT_FORMAT_OBJECT });
        await conn.commit();
        const rows = ((r.rows ?? []) as Record<string, unknown>[]).map(lower) as T[];
        e.rows = rows.length;
        return rows;
      } catch (err) {
        e.error = (err as Error).message;
        await conn.rollback().catch(() => {});
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
      const r = await conn.execute(sql, [], {
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
        await rs.close().catch(() => {});
        await conn.commit().catch(() => {});
        e.ms = performance.now() - t0;
        e.rows = rows;
      }
      return { rows, bytes, ms: performance.now() - t0, timedOut };
    },
    fork: () => createOracleExecutor(cfg, { ...opts, log }),
    close: async () => { await conn.close().catch(() => {}); },
  };
  return exec;
}
