import type pg from 'pg';
import { AppError } from '../errors';
import type { Env } from '../config/env';

/**
 * When the API stops accepting work: a queue the workers cannot drain for
 * minutes is answered with 429 and `Retry-After` rather than grown further
 * (the environment's TRIBUTARY_QUEUE_* variables). 0 turns a limit off.
 */
export interface QueueLimits {
  /** Runs waiting (queued, not started) at which new work is refused. (Default: 5000) */
  maxDepth: number;
  /** Age in seconds of the oldest waiting run at which new work is refused. (Default: 900) */
  maxAgeSeconds: number;
  /** The `Retry-After` sent with the refusal, seconds. (Default: 30) */
  retryAfterSeconds: number;
}

export function queueLimits(env: Pick<Env, 'TRIBUTARY_QUEUE_MAX_DEPTH' | 'TRIBUTARY_QUEUE_MAX_AGE_SECONDS' | 'TRIBUTARY_QUEUE_RETRY_AFTER_SECONDS'>): QueueLimits {
  return { maxDepth: env.TRIBUTARY_QUEUE_MAX_DEPTH, maxAgeSeconds: env.TRIBUTARY_QUEUE_MAX_AGE_SECONDS, retryAfterSeconds: env.TRIBUTARY_QUEUE_RETRY_AFTER_SECONDS };
}

/** A 429 that tells the client when to come back (the API sends it as `Retry-After`). */
export class QueueFullError extends AppError {
  constructor(message: string, readonly retryAfterSeconds: number) {
    super('rate_limited', message);
  }
}

/**
 * The queue's backlog: waiting runs (counted up to `countUpTo`, so a huge
 * backlog costs no more than a full one) and the oldest one's age. Both read
 * the (status, created_at) index.
 */
export async function queueBacklog(q: Pick<pg.Pool, 'query'>, countUpTo: number): Promise<{ depth: number; oldestSeconds: number }> {
  const r = await q.query(
    `select (select count(*) from (select 1 from job_runs where status = 'queued' limit $1) w)::int as depth,
            coalesce(extract(epoch from now() - (select min(created_at) from job_runs where status = 'queued')), 0)::float8 as oldest`,
    [countUpTo]);
  return { depth: r.rows[0].depth, oldestSeconds: r.rows[0].oldest };
}

/** Refuse new work (QueueFullError, 429) when the queue is past a limit. */
export async function assertQueueAdmits(q: Pick<pg.Pool, 'query'>, limits: QueueLimits): Promise<void> {
  if (!limits.maxDepth && !limits.maxAgeSeconds) return;
  const { depth, oldestSeconds } = await queueBacklog(q, limits.maxDepth ? limits.maxDepth : 1);
  if (limits.maxDepth && depth >= limits.maxDepth) {
    throw new QueueFullError(
      `queue full: ${limits.maxDepth} or more runs are waiting for a worker (TRIBUTARY_QUEUE_MAX_DEPTH); try again in ${limits.retryAfterSeconds} s`,
      limits.retryAfterSeconds);
  }
  if (limits.maxAgeSeconds && oldestSeconds >= limits.maxAgeSeconds) {
    throw new QueueFullError(
      `queue behind: the oldest waiting run has waited ${Math.round(oldestSeconds)} s (TRIBUTARY_QUEUE_MAX_AGE_SECONDS is ${limits.maxAgeSeconds}); try again in ${limits.retryAfterSeconds} s`,
      limits.retryAfterSeconds);
  }
}
