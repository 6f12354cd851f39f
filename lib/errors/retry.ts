import { setTimeout as delay } from 'node:timers/promises';
import { isTransient, toError } from './index';

/**
 * Wait `ms`, or until `signal` aborts — then reject with the signal's reason
 * (what the caller aborted with), not timers/promises' generic AbortError.
 */
export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  try {
    await delay(ms, undefined, { signal });
  } catch (e) {
    throw signal?.aborted ? signal.reason : e;
  }
}

/** Exponential backoff: `baseMs`, doubled per retry (retry 1, 2, …), capped at `maxMs`. */
export function backoffDelay(retry: number, baseMs: number, maxMs = Infinity): number {
  return Math.min(maxMs, baseMs * 2 ** Math.max(0, retry - 1));
}

export interface RetryOptions {
  /** Retries after the first attempt (attempts = retries + 1). */
  retries: number;
  /** Wait before retry N (1-based): a fixed number of ms, or a function such as `(n) => backoffDelay(n, 1000, 30_000)`. */
  delayMs: number | ((retry: number) => number);
  /**
   * Share of each wait drawn at random: the wait is between `delay × (1 − jitter)`
   * and `delay` ("equal jitter" at 0.5), so callers that failed together do not
   * retry in step. 0 waits exactly `delayMs`. (Default: 0.5)
   */
  jitter?: number;
  /** Whether an error is worth another attempt. (Default: `isTransient`, the seeds' retry rule) */
  retryable?: (e: Error) => boolean;
  /** Told before each wait, with the wait chosen (for a log line, a counter, a note on a run); awaited. */
  onRetry?: (e: Error, info: { attempt: number; attempts: number; delayMs: number }) => void | Promise<void>;
  /** Aborting stops at once: no retry, no wait. */
  signal?: AbortSignal;
}

/**
 * Call `fn(attempt)` (attempt 1, 2, …) until it resolves, retrying errors
 * that `retryable` accepts (by default only transient ones) at most `retries`
 * times, with a jittered wait between tries. The one retry loop of the
 * product: the last error is thrown as it was (an abort's error too), so the
 * caller can classify it.
 */
export async function withRetry<T>(fn: (attempt: number) => Promise<T>, o: RetryOptions): Promise<T> {
  const retryable = o.retryable ?? isTransient;
  for (let attempt = 1; ; attempt++) {
    try {
      o.signal?.throwIfAborted();
      return await fn(attempt);
    } catch (e) {
      if (o.signal?.aborted || attempt > o.retries || !retryable(toError(e))) throw e;
      const base = typeof o.delayMs === 'function' ? o.delayMs(attempt) : o.delayMs;
      const jitter = Math.min(1, Math.max(0, o.jitter ?? 0.5));
      const ms = Math.round(base * (1 - jitter * Math.random()));
      await o.onRetry?.(toError(e), { attempt, attempts: o.retries + 1, delayMs: ms });
      await sleep(ms, o.signal);
    }
  }
}
