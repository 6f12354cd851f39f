import type pg from 'pg';

/**
 * Run `fn` in one transaction on a client of `pool`: BEGIN, then COMMIT when
 * `fn` resolves, ROLLBACK when it throws (the original error is rethrown; a
 * failed ROLLBACK discards the client instead of returning it to the pool).
 */
export async function withTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>, opts: { begin?: string } = {}): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query(opts.begin ?? 'begin');
    const out = await fn(client);
    await client.query('commit');
    return out;
  } catch (e) {
    // The connection may be gone (that can be why we are here): then it must not go back to the pool.
    await client.query('rollback').catch((re: Error) => { broken = re; });
    throw e;
  } finally {
    client.release(broken);
  }
}
