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

/**
 * A counting semaphore (one per branch): `acquire` takes a slot or queues;
 * a release hands its slot straight to the oldest waiter (FIFO), so a freed
 * slot is used at once instead of at a waiter's next poll. An aborted wait
 * leaves the queue with the signal's reason and takes no slot.
 */
export class SlotPool {
  private used = 0;
  private readonly waiters: { take(): void }[] = [];
  constructor(readonly size: number) {}

  /** Slots in use, and callers waiting for one. */
  get stats(): { used: number; waiting: number } { return { used: this.used, waiting: this.waiters.length }; }

  async acquire(signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    if (this.used < this.size && this.waiters.length === 0) {
      this.used++;
      return this.releaser();
    }
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const i = this.waiters.indexOf(w);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(signal!.reason);
      };
      const w = { take: () => { signal?.removeEventListener('abort', onAbort); resolve(); } };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(w);
    });
    return this.releaser(); // the releasing caller handed its slot over: `used` is unchanged
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiters.shift();
      if (next) next.take();
      else this.used--;
    };
  }
}
