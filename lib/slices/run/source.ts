import pg from 'pg';
import type { RunSettings } from './settings';

/** The slice source as the orchestrator needs it: watermark capture and reconcile counts. */
export interface SourceDb {
  engine: 'postgres' | 'oracle';
  /** host:port/db, no credentials (stored with the watermark). */
  dsn: string;
  query(sql: string): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

/** `postgres://u:p@h:5432/db?x` → `h:5432/db`. */
export function displayDsn(url: string): string {
  const u = new URL(url);
  return `${u.hostname}:${u.port || 5432}${u.pathname}`;
}

/** Open the configured source; null when none is configured. */
export async function openSource(s: Pick<RunSettings, 'sourceEngine' | 'sourceUrl' | 'oracle'>): Promise<SourceDb | null> {
  if (s.sourceEngine === 'postgres') {
    if (!s.sourceUrl) return null;
    const pool = new pg.Pool({ connectionString: s.sourceUrl, max: 4, application_name: 'tributary-slices' });
    pool.on('error', () => {});
    return { engine: 'postgres', dsn: displayDsn(s.sourceUrl), query: async (sql) => (await pool.query(sql)).rows, close: () => pool.end() };
  }
  if (!s.oracle) return null;
  // Oracle: thin mode, no Instant Client needed. Not exercised here (no Oracle server).
  const modName = 'oracledb'; // no type declarations ship with oracledb
  const oracledb = ((await import(modName)) as { default: any }).default; // eslint-disable-line @typescript-eslint/no-explicit-any
  const conn = await oracledb.getConnection({ user: s.oracle.user, password: s.oracle.password, connectString: s.oracle.connectString });
  return {
    engine: 'oracle', dsn: s.oracle.connectString,
    query: async (sql) => ((await conn.execute(sql, [], { outFormat: oracledb.OUT_FORMAT_OBJECT })).rows ?? []) as Record<string, unknown>[],
    close: () => conn.close(),
  };
}
