/** Run async tasks with at most `limit` at once; resolves when all settled. */
export async function runPool<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
}

/** A FIFO queue drained by `limit` concurrent consumers; `close()` then `done` waits for the rest. */
export class WorkQueue<T> {
  private items: T[] = [];
  private waiting: (() => void)[] = [];
  private closed = false;
  readonly done: Promise<void>;
  constructor(limit: number, fn: (item: T) => Promise<void>) {
    const consumer = async () => {
      for (;;) {
        const item = this.items.shift();
        if (item !== undefined) { await fn(item); continue; }
        if (this.closed) return;
        await new Promise<void>((r) => this.waiting.push(r));
      }
    };
    this.done = Promise.all(Array.from({ length: Math.max(1, limit) }, consumer)).then(() => {});
  }
  push(item: T): void { this.items.push(item); this.waiting.shift()?.(); }
  close(): void { this.closed = true; for (const w of this.waiting.splice(0)) w(); }
}
