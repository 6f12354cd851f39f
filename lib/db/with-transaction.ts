import type pg from 'pg';

/**
 * Run `fn` inside one transaction on a connection of `pool`: COMMIT when it
 * resolves, ROLLBACK when it throws (the error is rethrown; a failing
 * ROLLBACK — the connection is already broken — is not allowed to mask it,
 * and that connection is discarded rather than returned to the pool).
 */
export async function withTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('begin');
    const out = await fn(client);
    await client.query('commit');
    return out;
  } catch (e) {
    try { await client.query('rollback'); } catch (r) { broken = r as Error; }
    throw e;
  } finally {
    client.release(broken);
  }
}
