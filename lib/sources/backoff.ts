import { sleep } from '../errors';

/**
 * Exponential backoff while a branch's connection pool is exhausted, so a
 * busy branch is never thrashed: waits 50 ms, 100 ms, 200 ms… capped at
 * `maxDelayMs`, until a slot frees or the signal aborts.
 */
export async function waitForSlot(hasSlot: () => boolean, opts: { signal?: AbortSignal; baseDelayMs?: number; maxDelayMs?: number } = {}): Promise<void> {
  let delay = opts.baseDelayMs ?? 50;
  const max = opts.maxDelayMs ?? 5_000;
  while (!hasSlot()) {
    opts.signal?.throwIfAborted();
    await sleep(delay, opts.signal);
    delay = Math.min(max, delay * 2);
  }
}

// kept on this module's surface for its existing importers; the one implementation is lib/errors/retry.ts
export { sleep };

/** A counting semaphore with backoff (one per branch). */
export class SlotPool {
  private used = 0;
  constructor(readonly size: number) {}
  async acquire(signal?: AbortSignal): Promise<() => void> {
    await waitForSlot(() => this.used < this.size, { signal });
    this.used++;
    let released = false;
    return () => { if (!released) { released = true; this.used--; } };
  }
}
