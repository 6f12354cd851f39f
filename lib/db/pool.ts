import type pg from 'pg';
import { createPgPool } from './pg-connect';

/**
 * A node-postgres pool for raw SQL (engines, the queue, the Iceberg catalog).
 * The URL's `sslmode` means what libpq documents (`prefer`, the default, tries
 * TLS and falls back to plain), not node-pg's reading of it.
 * @param opts.max connections in the pool (Default: 10)
 */
export function createPool(url: string, opts: { max?: number; application?: string } = {}): pg.Pool {
  const pool = createPgPool({
    connectionString: url,
    max: opts.max ?? 10,
    application_name: opts.application ?? 'tributary',
    connectionTimeoutMillis: 10_000,
  });
  // An idle client losing its server must not crash the process.
  pool.on('error', () => {});
  // Nor a checked-out one between two queries (a transaction awaiting other work when the server
  // stops): pg-pool listens only to idle clients, and an 'error' nobody listens to is thrown. The
  // caller still sees the failure on its next query, and the pool discards the client on release.
  pool.on('connect', (client) => { client.on('error', () => {}); });
  return pool;
}
