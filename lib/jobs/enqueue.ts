import crypto from 'node:crypto';
import type pg from 'pg';
import { parseRequest } from '../config/request';
import { AppError } from '../errors';
import { assertCleanJson } from '../errors/bad-bytes';
import type { Env } from '../config/env';
import { recordAudit, type AuditActor } from '../audit';
import type { JobRegistry } from './registry';
import { findSecret } from '../log/secret-scan';
import { writeJobs, type JobToWrite } from './write-jobs';
import { createIdempotently, findIdempotentRun, type IdempotencyRequest } from './idempotency';
import { assertQueueAdmits, type QueueLimits } from './admission';

export interface EnqueueRequest {
  kind: string;
  params?: unknown;
  /** Who started it: `user:<name>`, `token:<name>`, `cli`, `flow:<id>`. */
  createdBy?: string;
  /** Where it came from. (Default: `flow` when createdBy is `flow:…`, `schedule` for `schedule:…`, else `api`) */
  source?: 'api' | 'cli' | 'flow' | 'schedule';
  /** The run this one retries: recorded as `job.retry` on that run, in the same transaction. (Default: none) */
  retryOf?: string;
  /** Record `job.start` in the audit log, in the enqueue transaction. (Default: actor = createdBy, no address) */
  audit?: Partial<AuditActor>;
  /** Allow an internal kind (a job enqueueing its own units); never taken from a request. (Default: false) */
  internal?: boolean;
  /**
   * The request's `Idempotency-Key`: a repeat within 24 hours returns the first
   * run (`replayed: true`) and creates nothing. (Default: none)
   */
  idempotency?: IdempotencyRequest;
  /** Refuse (429) when the queue is past these limits; a replay is never refused. (Default: no limits — internal enqueues) */
  admission?: QueueLimits;
}

function sourceOf(createdBy: string | undefined): 'api' | 'flow' | 'schedule' {
  if (createdBy?.startsWith('flow:')) return 'flow';
  if (createdBy?.startsWith('schedule:')) return 'schedule';
  return 'api';
}

/** What enqueueing needs: the database, the kinds this process knows, and the environment their checks read. */
export interface EnqueueDeps {
  pool: pg.Pool;
  jobs: JobRegistry;
  env: Env;
}

/** Validate a job request's shape; throws AppError('validation') naming the field. */
export function validateJob(jobs: JobRegistry, req: EnqueueRequest): { kind: string; params: unknown } {
  const def = jobs.get(req.kind);
  // An internal kind is answered as unknown: it is not something a caller can start.
  if (!def || (def.internal && !req.internal)) throw new AppError('validation', `unknown job kind '${req.kind}'`, { field: 'kind' });
  // Params are stored and shown to every viewer: no credential may ride in them.
  const secret = findSecret(req.params ?? {}, 'params');
  if (secret) throw new AppError('validation', `${secret.field}: refused — ${secret.reason}; name a connection instead`, { field: secret.field });
  // Params are stored as jsonb, which holds no NUL: refused here for every caller (API, CLI, flows), naming the field.
  assertCleanJson(req.params ?? {}, 'params');
  return { kind: req.kind, params: parseRequest(def.payload, req.params ?? {}, 'params') };
}

/**
 * Validate, and keep the params as the client wrote them: that is what is
 * stored and what the worker parses again, so a schema that transforms
 * (durations into milliseconds, lists from strings) is never applied twice.
 */
function validated(jobs: JobRegistry, req: EnqueueRequest): { kind: string; parsed: unknown; raw: unknown } {
  const { kind, params } = validateJob(jobs, req);
  return { kind, parsed: params, raw: req.params ?? {} };
}

/**
 * Validate a request, refuse it when the queue is past its admission limits,
 * and run its kind's check against configuration (tables,
 * branches, connections, files), so a bad payload is a 400 and never a run.
 * @returns the job to write (write-jobs.ts), with a fresh run id
 */
export async function prepareJob(deps: EnqueueDeps, req: EnqueueRequest): Promise<JobToWrite> {
  const { kind, parsed, raw: params } = validated(deps.jobs, req);
  if (req.admission) await assertQueueAdmits(deps.pool, req.admission);
  await deps.jobs.get(kind)!.check?.({ pool: deps.pool, env: deps.env }, parsed as never);
  const createdBy = req.createdBy ?? null;
  return {
    runId: crypto.randomUUID(), kind, params, createdBy, source: req.source ?? sourceOf(req.createdBy),
    // A run's units are not separate user actions: the coordinator's own start is audited.
    audit: req.internal ? null : { actor: req.audit?.actor ?? createdBy ?? 'system', address: req.audit?.address },
  };
}

/**
 * Record a job run and queue it in one transaction: either both exist or
 * neither. Returns the run id.
 */
export async function enqueueJob(deps: EnqueueDeps, req: EnqueueRequest): Promise<{ runId: string; replayed: boolean }> {
  const { pool } = deps;
  if (req.idempotency) {
    const prior = await findIdempotentRun(pool, req.idempotency, 'job_run');
    if (prior) return { runId: prior, replayed: true };
  }
  const job = await prepareJob(deps, req);
  const { id, replayed } = await createIdempotently(pool, req.idempotency, 'job_run', async (client) => {
    await writeJobs(client, [job]);
    if (req.retryOf) {
      await recordAudit(client, {
        actor: req.audit?.actor ?? req.createdBy ?? 'system', action: 'job.retry', target: `job:${req.retryOf}`,
        after: { runId: job.runId, kind: job.kind }, address: req.audit?.address,
      });
    }
    return job.runId;
  });
  return { runId: id, replayed };
}
