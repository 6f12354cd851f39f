import { isDatabaseUnavailable } from '../errors/db-unavailable';
import { backoffDelay, withRetry } from '../errors/retry';

/**
 * Run `fn`, and run it again while it fails because the database cannot be
 * reached (an outage, the embedded server restarting), waiting longer each
 * time: for writes that must land once the database is back — a finished
 * run's status — rather than be lost with the connection. Other errors, and
 * the last one after `maxMs`, are thrown as they were. Bounded by time, not
 * by a count, through the one retry loop (`withRetry`).
 * @param opts.maxMs how long to keep trying (Default: 300000 ms)
 */
export async function retryWhileUnavailable<T>(fn: () => Promise<T>, opts: { maxMs?: number; signal?: AbortSignal } = {}): Promise<T> {
  const until = Date.now() + (opts.maxMs ?? 300_000);
  return withRetry(() => fn(), {
    retries: Infinity,
    delayMs: (n) => backoffDelay(n, 250, 5000),
    retryable: (e) => isDatabaseUnavailable(e) && Date.now() <= until,
    signal: opts.signal,
  });
}
