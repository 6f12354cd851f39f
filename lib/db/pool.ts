import pg from 'pg';

/**
 * A node-postgres pool for raw SQL (engines, the queue, the Iceberg catalog).
 * @param opts.max connections in the pool (Default: 10)
 */
export function createPool(url: string, opts: { max?: number; application?: string } = {}): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.max ?? 10,
    application_name: opts.application ?? 'tributary',
    connectionTimeoutMillis: 10_000,
  });
  // An idle client losing its server must not crash the process.
  pool.on('error', () => {});
  return pool;
}
