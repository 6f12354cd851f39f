import type pg from 'pg';

/**
 * The channel enqueueing notifies and workers LISTEN on. pg-boss 10 has no
 * notification of its own (its workers only poll), so Tributary sends one.
 */
export const JOBS_CHANNEL = 'tributary_jobs';

/**
 * Tell listening workers that a job was queued. Inside a transaction
 * Postgres delivers it at COMMIT (never for a rolled-back job), and several
 * identical notifications of one transaction are folded into one.
 */
export async function notifyJobsQueued(q: Pick<pg.PoolClient, 'query'>): Promise<void> {
  await q.query('select pg_notify($1, $2)', [JOBS_CHANNEL, '']);
}

export interface JobsListener {
  /** Stop listening and give the connection back. */
  stop(): Promise<void>;
}

/**
 * LISTEN for queued jobs on a connection of its own (held from `pool` for the
 * listener's life) and call `onWake` on each notification. A lost connection
 * is replaced after a back-off (1 s doubling to 30 s); `onWake` is also called
 * once listening starts again, since jobs queued meanwhile sent their
 * notification to nobody. The worker's poll stays the safety net.
 */
export function listenForJobs(pool: pg.Pool, onWake: () => void, opts: { onError?: (e: Error) => void } = {}): JobsListener {
  let stopped = false;
  let client: pg.PoolClient | null = null;
  let retryTimer: NodeJS.Timeout | null = null;
  let failures = 0;
  let connecting: Promise<void> = Promise.resolve();

  const connect = async () => {
    if (stopped) return;
    let c: pg.PoolClient | null = null;
    try {
      c = await pool.connect();
      const mine = c;
      mine.on('notification', (n) => { if (n.channel === JOBS_CHANNEL) onWake(); });
      // A connection that dies while idle: release it broken and listen again.
      mine.on('error', (e) => lost(mine, e));
      mine.on('end', () => lost(mine, new Error('connection ended')));
      await mine.query(`listen ${JOBS_CHANNEL}`);
      if (stopped) { mine.release(true); return; }
      client = mine;
      failures = 0;
      onWake();
    } catch (e) {
      c?.release(true);
      retry(e as Error);
    }
  };
  const lost = (c: pg.PoolClient, e: Error) => {
    if (client !== c) return;
    client = null;
    c.release(true);
    retry(e);
  };
  const retry = (e: Error) => {
    if (stopped) return;
    opts.onError?.(e);
    failures++;
    const ms = Math.min(30_000, 1000 * 2 ** Math.min(failures - 1, 5));
    retryTimer = setTimeout(() => { retryTimer = null; connecting = connect(); }, ms);
    retryTimer.unref();
  };

  connecting = connect();
  return {
    stop: async () => {
      stopped = true;
      if (retryTimer) clearTimeout(retryTimer);
      await connecting;
      const c = client;
      client = null;
      if (!c) return;
      // Closed, not returned to the pool: it carries our listeners and the LISTEN, which no other user should get.
      c.release(true);
    },
  };
}
