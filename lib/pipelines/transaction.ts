import type pg from 'pg';

/** Run `fn` in one transaction on a pooled client: committed when it returns, rolled back when it throws. */
export async function withTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    const out = await fn(client);
    await client.query('commit');
    return out;
  } catch (e) {
    await client.query('rollback').catch(() => {}); // the original error is what matters; a failed ROLLBACK means the connection is already gone
    throw e;
  } finally {
    client.release();
  }
}
