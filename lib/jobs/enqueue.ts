import crypto from 'node:crypto';
import type pg from 'pg';
import { z } from 'zod';
import { AppError } from '../errors';
import { recordAudit, type AuditActor } from '../audit';
import { getJobDefinition } from './registry';
import { findSecret, redactSecrets } from './secret-scan';
import { QUEUE, bossDb, createBoss } from './queue';

export interface EnqueueRequest {
  kind: string;
  params?: unknown;
  /** Who started it: `user:<name>`, `token:<name>`, `cli`, `flow:<id>`. */
  createdBy?: string;
  /** Record `job.start` in the audit log, in the enqueue transaction. (Default: actor = createdBy, no address) */
  audit?: Partial<AuditActor>;
}

const bosses = new WeakMap<pg.Pool, ReturnType<typeof createBoss>>();
function senderFor(pool: pg.Pool) {
  let b = bosses.get(pool);
  if (!b) { b = createBoss(pool); bosses.set(pool, b); }
  return b;
}

/** Validate a job request; throws AppError('validation') naming the field. */
export function validateJob(req: EnqueueRequest): { kind: string; params: unknown } {
  const def = getJobDefinition(req.kind);
  if (!def) throw new AppError('validation', `unknown job kind '${req.kind}'`, { field: 'kind' });
  // Params are stored and shown to every viewer: no credential may ride in them.
  const secret = findSecret(req.params ?? {}, 'params');
  if (secret) throw new AppError('validation', `${secret.field}: refused — ${secret.reason}; name a connection instead`, { field: secret.field });
  const r = def.payload.safeParse(req.params ?? {});
  if (!r.success) {
    const issue = r.error.issues[0];
    const field = ['params', ...issue.path.map(String)].join('.');
    throw new AppError('validation', `${field}: ${issue.message}`, { field, cause: z.prettifyError(r.error) });
  }
  return { kind: req.kind, params: r.data };
}

/**
 * Record a job run and queue it in one transaction: either both exist or
 * neither. Returns the run id.
 */
export async function enqueueJob(pool: pg.Pool, req: EnqueueRequest): Promise<{ runId: string }> {
  const { kind, params } = validateJob(req);
  const runId = crypto.randomUUID();
  const boss = senderFor(pool);
  const client = await pool.connect();
  try {
    await client.query('begin');
    await client.query(
      `insert into job_runs (id, kind, params, status, created_by) values ($1, $2, $3, 'queued', $4)`,
      [runId, kind, JSON.stringify(params), req.createdBy ?? null],
    );
    const jobId = await boss.send(QUEUE, { runId, kind }, { db: bossDb(client) });
    if (!jobId) throw new AppError('internal', `jobs: queue '${QUEUE}' refused the job (is the database migrated?)`);
    await client.query('update job_runs set queue_job_id = $2 where id = $1', [runId, jobId]);
    await recordAudit(client, {
      actor: req.audit?.actor ?? req.createdBy ?? 'system', action: 'job.start', target: `job:${runId}`,
      after: { kind, params: redactSecrets(params) }, address: req.audit?.address,
    });
    await client.query('commit');
    return { runId };
  } catch (e) {
    await client.query('rollback').catch(() => {});
    throw e;
  } finally {
    client.release();
  }
}
