import type pg from 'pg';

/**
 * A pool whose one connection is `client`, a connection the caller holds
 * inside its own transaction, with BEGIN / COMMIT / ROLLBACK turned into a
 * savepoint. Code written against a pool (a job kind's enqueue-time check,
 * which may open a transaction of its own) then runs inside the caller's
 * transaction and can neither commit nor roll back the caller's work.
 */
export function clientAsPool(client: Pick<pg.PoolClient, 'query'>, savepoint = 'tributary_nested'): pg.Pool {
  const translate = (text: unknown) => {
    if (typeof text !== 'string') return text;
    const t = text.trim().toLowerCase();
    if (t === 'begin') return `savepoint ${savepoint}`;
    if (t === 'commit') return `release savepoint ${savepoint}`;
    if (t === 'rollback') return `rollback to savepoint ${savepoint}`;
    return text;
  };
  const wrapped = {
    query: (text: unknown, values?: unknown) => (client.query as (t: unknown, v?: unknown) => Promise<pg.QueryResult>)(translate(text), values),
    release: () => {},
  };
  return { connect: async () => wrapped, query: wrapped.query } as unknown as pg.Pool;
}
