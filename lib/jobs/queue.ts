import PgBoss from 'pg-boss';
import type pg from 'pg';
import { createPool } from '../db/pool';
import { toError } from '../errors';
import { consoleSink, createLogger, type Logger } from '../log';

/** The one pg-boss queue every job kind goes through; the payload names the kind. */
export const QUEUE = 'tributary-jobs';

/** Adapts a pg pool or client to pg-boss's `db` interface. */
export function bossDb(q: Pick<pg.Pool, 'query'> | Pick<pg.PoolClient, 'query'>): PgBoss.Db {
  return { executeSql: (text, values) => q.query(text, values) as Promise<{ rows: unknown[] }> as Promise<{ rows: any[] }> };
}

/** Where pg-boss's errors go when the caller hands no logger (web and CLI senders). */
const queueLogger: Logger = createLogger(consoleSink(), { fields: { scope: 'jobs' } });

/**
 * pg-boss reports failures of its own work (maintenance, supervision, a
 * polling worker) as `error` events; an unhandled one would crash the
 * process. They do not fail a run (job_runs records that), but they are
 * logged, through the redacting logger, so an operator sees them.
 */
export function logBossErrors(boss: PgBoss, logger: Logger = queueLogger): PgBoss {
  boss.on('error', (e) => {
    const err = toError(e);
    logger.warn('jobs: pg-boss error', { error: err.message, code: (err as { code?: unknown }).code });
  });
  return boss;
}

/**
 * A pg-boss instance over an existing pool. Web and CLI only send (no
 * maintenance); workers supervise (expire/retention) too.
 */
export function createBoss(pool: Pick<pg.Pool, 'query'>, opts: { supervise?: boolean; logger?: Logger } = {}): PgBoss {
  const boss = new PgBoss({
    db: bossDb(pool),
    migrate: false,
    supervise: opts.supervise ?? false,
    schedule: false,
  });
  return logBossErrors(boss, opts.logger);
}

/**
 * Create pg-boss's schema and Tributary's queue (idempotent). Called with the
 * SQL migrations by every starter. Tributary owns retries (job_runs), so the
 * queue itself never retries, and its expiry is long: a live run is watched by
 * heartbeats (lib/jobs/reaper.ts), not by pg-boss's expiry.
 */
export async function ensureQueue(pool: pg.Pool): Promise<void> {
  const boss = new PgBoss({ db: bossDb(pool), migrate: true, supervise: false, schedule: false });
  logBossErrors(boss);
  // pg-boss's own migration is not guarded against two concurrent starters.
  const c = await pool.connect();
  try {
    await c.query('select pg_advisory_lock(7401337002)');
    await boss.start();
    if (!(await boss.getQueue(QUEUE))) {
      await boss.createQueue(QUEUE, { name: QUEUE, policy: 'standard', retryLimit: 0, expireInHours: 23, retentionDays: 7 });
    }
    await boss.stop({ graceful: false, wait: true, close: false });
  } finally {
    // The lock is session-scoped: if unlocking fails the connection is gone and the lock with it.
    await c.query('select pg_advisory_unlock(7401337002)').catch(() => {});
    c.release();
  }
}

/**
 * ensureQueue on a short-lived pool of `url`: what a starter hands to
 * connectDatabase as its owner-only `setup`, since installing pg-boss's schema
 * takes DDL the application role may not run.
 */
export async function installQueue(url: string): Promise<void> {
  const pool = createPool(url, { max: 2 });
  try { await ensureQueue(pool); } finally { await pool.end(); }
}
