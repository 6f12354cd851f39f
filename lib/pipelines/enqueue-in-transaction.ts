import type pg from 'pg';
import { enqueueJob, type EnqueueRequest } from '../jobs/enqueue';
import type { JobCatalog } from '../jobs/types';

/**
 * `enqueueJob` inside a transaction the caller already holds on `client`.
 * enqueueJob opens its own transaction on a pool; here it gets a pool whose
 * one connection is the caller's client, with its BEGIN/COMMIT/ROLLBACK
 * turned into a savepoint. So the job run, its queue job and the caller's own
 * rows (a flow node's state, a pipeline's history) commit or vanish together:
 * a worker killed between the two can neither lose nor double a job.
 * `catalog` is the caller's job kinds and settings (its edge's).
 */
export async function enqueueJobInTransaction(client: pg.PoolClient, catalog: JobCatalog, req: EnqueueRequest): Promise<{ runId: string }> {
  const sp = 'tributary_enqueue';
  const translate = (text: unknown) => {
    if (typeof text !== 'string') return text;
    const t = text.trim().toLowerCase();
    if (t === 'begin') return `savepoint ${sp}`;
    if (t === 'commit') return `release savepoint ${sp}`;
    if (t === 'rollback') return `rollback to savepoint ${sp}`;
    return text;
  };
  const wrapped = {
    query: (text: unknown, values?: unknown) => (client.query as (t: unknown, v?: unknown) => Promise<pg.QueryResult>)(translate(text), values),
    release: () => {},
  };
  const pool = {
    connect: async () => wrapped,
    query: wrapped.query,
  } as unknown as pg.Pool;
  return enqueueJob({ pool, jobs: catalog.jobs, env: catalog.env }, req);
}
