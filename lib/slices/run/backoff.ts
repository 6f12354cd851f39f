import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Exponential backoff, once for the slices engine: the delay before retry
 * `attempt` (0-based) is `baseMs · 2^attempt`, capped at `maxMs` (Striim API
 * retries; a failed slice's re-dispatch).
 */
export function backoffDelay(attempt: number, baseMs: number, maxMs = Number.POSITIVE_INFINITY): number {
  return Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt));
}

/**
 * Wait `ms`, or less when `signal` aborts: an abort ends the pause (the caller
 * then sees `signal.aborted`), it does not throw.
 */
export async function pause(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0 || signal?.aborted) return;
  await sleep(ms, undefined, { signal }).catch((e: Error) => { if (e.name !== 'AbortError') throw e; });
}
