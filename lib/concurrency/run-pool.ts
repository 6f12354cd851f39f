import { SlotPool } from './slot-pool';

/**
 * Run `fn` over `items` with at most `limit` at once, in order of the list;
 * resolves when all have run, rejects with the first error (the rest still run).
 */
export async function runPool<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  const slots = new SlotPool(Math.max(1, limit));
  await Promise.all(items.map((item) => slots.run(() => fn(item))));
}

/**
 * A FIFO queue drained by at most `limit` concurrent runs of `fn`: `push`
 * items as they come, `close()` when no more will, then `done` settles when
 * every pushed item has run (rejecting with the first error).
 */
export class WorkQueue<T> {
  private readonly slots: SlotPool;
  private readonly tasks: Promise<void>[] = [];
  private closeQueue!: () => void;
  readonly done: Promise<void>;
  constructor(limit: number, private readonly fn: (item: T) => Promise<void>) {
    this.slots = new SlotPool(Math.max(1, limit));
    const closed = new Promise<void>((resolve) => { this.closeQueue = resolve; });
    this.done = closed.then(() => Promise.all(this.tasks)).then(() => {});
  }
  push(item: T): void {
    const task = this.slots.run(() => this.fn(item));
    // Observed now (`done` reports it once closed): a failure before close() is not an unhandled rejection.
    task.catch(() => {});
    this.tasks.push(task);
  }
  close(): void { this.closeQueue(); }
}
