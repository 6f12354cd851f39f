import type pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A counting semaphore held in Postgres, shared by every worker on every
 * machine: `limit` slots per `scope` (a run's branch, say), each slot one
 * session-level advisory lock `(hashtext(scope), i)`. A holder keeps its own
 * connection for as long as it holds the slot, so a worker that dies (kill -9,
 * a lost machine) frees its slots the moment Postgres sees its connection
 * close — nothing to reap.
 */
export interface SlotLease {
  /** Which of the `limit` slots is held (0-based). */
  slot: number;
  release(): Promise<void>;
}

/** Take one of `limit` slots of `scope`, polling every `pollMs` until one is free. (Default: 250 ms) */
export async function acquireSlot(pool: pg.Pool, scope: string, limit: number, opts: { signal?: AbortSignal; pollMs?: number } = {}): Promise<SlotLease> {
  const client = await pool.connect();
  let held = false;
  try {
    // Start at a different slot per caller so waiters do not all contend for slot 0.
    const start = Math.floor(Math.random() * limit);
    for (;;) {
      opts.signal?.throwIfAborted();
      for (let k = 0; k < limit; k++) {
        const slot = (start + k) % limit;
        const r = await client.query('select pg_try_advisory_lock(hashtext($1), $2) as ok', [`tributary-slot:${scope}`, slot]);
        if (r.rows[0].ok) {
          held = true;
          return {
            slot,
            release: async () => {
              // Unlocking failing means the connection is gone, and the lock with it: drop the connection.
              const ok = await client.query('select pg_advisory_unlock(hashtext($1), $2)', [`tributary-slot:${scope}`, slot]).then(() => true, () => false);
              client.release(ok ? undefined : true);
            },
          };
        }
      }
      await sleep(opts.pollMs ?? 250, undefined, { signal: opts.signal });
    }
  } finally {
    if (!held) client.release();
  }
}

/** Run `fn` holding one slot of `scope`. */
export async function withSlot<T>(pool: pg.Pool, scope: string, limit: number, fn: () => Promise<T>, opts: { signal?: AbortSignal; pollMs?: number } = {}): Promise<T> {
  const lease = await acquireSlot(pool, scope, limit, opts);
  try { return await fn(); } finally { await lease.release(); }
}
