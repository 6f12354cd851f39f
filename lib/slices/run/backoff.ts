import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Wait `ms`, or less when `signal` aborts: an abort ends the pause (the caller
 * then sees `signal.aborted`), it does not throw.
 */
export async function pause(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0 || signal?.aborted) return;
  await sleep(ms, undefined, { signal }).catch((e: Error) => { if (e.name !== 'AbortError') throw e; });
}
