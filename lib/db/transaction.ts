import type pg from 'pg';

/**
 * Run `fn` in one transaction on one pooled connection: COMMIT when it
 * resolves, ROLLBACK when it throws (and rethrow its error). A connection
 * whose ROLLBACK fails is broken, so it is destroyed rather than returned
 * to the pool.
 */
export async function withTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const out = await fn(client);
    await client.query('COMMIT');
    return out;
  } catch (e) {
    // the caller needs fn's error, not the rollback's: a failed rollback only marks the connection broken
    await client.query('ROLLBACK').catch((r: Error) => { broken = r; });
    throw e;
  } finally {
    client.release(broken);
  }
}
