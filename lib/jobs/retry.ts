import type pg from 'pg';
import { AppError } from '../errors';
import type { AuditActor } from '../audit';
import { enqueueJob, type EnqueueDeps } from './enqueue';

/** The kind and parameters of a finished run, to start again. Throws not_found or conflict. */
export async function retryableRun(pool: pg.Pool, id: string): Promise<{ kind: string; params: unknown }> {
  const r = /^[0-9a-f-]{36}$/i.test(id) ? await pool.query('select kind, params, status from job_runs where id = $1', [id]) : { rowCount: 0, rows: [] };
  if (!r.rowCount) throw new AppError('not_found', `job run ${id} not found`);
  const { kind, params, status } = r.rows[0];
  // One copy at a time: a run still queued or running would do the same work twice.
  if (status === 'queued' || status === 'running') throw new AppError('conflict', `job run ${id} is still ${status}; cancel it or wait for it to end before retrying`);
  return { kind, params };
}

/**
 * Queue a new run with the same kind and parameters as run `id`. The
 * parameters go through `enqueueJob` again (schema and checks), so a payload
 * that no longer passes — a table since removed, a branch renamed — is a 400
 * and no run. The new run is audited as `job.start`, and `job.retry` on the old one.
 */
export async function retryJobRun(deps: EnqueueDeps, id: string, by: { createdBy?: string; audit?: Partial<AuditActor> } = {}): Promise<{ runId: string; kind: string }> {
  const { kind, params } = await retryableRun(deps.pool, id);
  const { runId } = await enqueueJob(deps, { kind, params, createdBy: by.createdBy, audit: by.audit, retryOf: id });
  return { runId, kind };
}
