import { isDatabaseUnavailable } from '../errors/db-unavailable';
import { sleep } from '../errors/retry';

/**
 * Run `fn`, and run it again while it fails because the database cannot be
 * reached (an outage, the embedded server restarting), waiting longer each
 * time: for writes that must land once the database is back — a finished
 * run's status — rather than be lost with the connection. Other errors, and
 * the last one after `maxMs`, are thrown as they were.
 * @param opts.maxMs how long to keep trying (Default: 300000 ms)
 */
export async function retryWhileUnavailable<T>(fn: () => Promise<T>, opts: { maxMs?: number; signal?: AbortSignal } = {}): Promise<T> {
  const until = Date.now() + (opts.maxMs ?? 300_000);
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (e) {
      if (!isDatabaseUnavailable(e) || Date.now() > until || opts.signal?.aborted) throw e;
      await sleep(Math.min(5000, 250 * 2 ** Math.min(attempt, 5)), opts.signal);
    }
  }
}
