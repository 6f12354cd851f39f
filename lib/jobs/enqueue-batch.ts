import type pg from 'pg';
import { AppError } from '../errors';
import { prepareJob, type EnqueueRequest } from './enqueue';
import type { JobCatalog } from './types';
import { clientAsPool } from './client-as-pool';
import { writeJobs, type JobToWrite } from './write-jobs';

/** One request's outcome in a batch: its run, or why it was refused. */
export type BatchStart = { runId: string; error?: undefined } | { runId?: undefined; error: AppError };

/**
 * Start several jobs inside the transaction the caller holds on `client`.
 * Each request is validated and checked on its own, so a refused one comes
 * back as its error while the others start; then every accepted job is
 * written at once (write-jobs.ts: one INSERT of run rows, one pg-boss insert).
 * The jobs commit or vanish with the caller's own rows — a worker killed
 * between the writes leaves neither, so the next attempt cannot double them.
 *
 * A check that fails with anything but an AppError (the database, say) is
 * thrown: the caller's transaction cannot go on, and its next attempt redoes
 * the whole batch. Idempotency keys and `retryOf` are not taken here: the
 * batch form serves the engines' own starts (flow steps, alerts, pipelines).
 * @returns one outcome per request, in order
 */
export async function enqueueJobBatch(client: pg.PoolClient, catalog: JobCatalog, reqs: EnqueueRequest[]): Promise<BatchStart[]> {
  if (reqs.some((r) => r.idempotency || r.retryOf)) throw new AppError('internal', 'jobs: a batch start takes no idempotency key or retryOf (use enqueueJob)');
  const deps = { pool: clientAsPool(client, 'tributary_check'), jobs: catalog.jobs, env: catalog.env };
  const out: BatchStart[] = [];
  const accepted: JobToWrite[] = [];
  for (const req of reqs) {
    try {
      const job = await prepareJob(deps, req);
      accepted.push(job);
      out.push({ runId: job.runId });
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      out.push({ error: e });
    }
  }
  await writeJobs(client, accepted);
  return out;
}

/** One job started inside the caller's transaction (a batch of one); a refusal is thrown. */
export async function enqueueJobInTransaction(client: pg.PoolClient, catalog: JobCatalog, req: EnqueueRequest): Promise<{ runId: string }> {
  const [r] = await enqueueJobBatch(client, catalog, [req]);
  if (r.error) throw r.error;
  return { runId: r.runId };
}
