/**
 * The one in-process concurrency primitive: a branch's connection slots, the
 * ETL's table and load workers, the lake's orphan deletes all queue on it
 * (lib/concurrency/run-pool.ts builds the batch and queue forms on it).
 */
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

  /** Run `fn` in a slot: wait for one, run, release (also when `fn` throws). */
  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const release = await this.acquire(signal);
    try { return await fn(); } finally { release(); }
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
