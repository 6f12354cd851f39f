import { describe, expect, it } from 'vitest';
import { SlotPool } from './slot-pool';

// Resolves after every queued microtask: a waiter woken by release() has run by then, a polling one has not.
const afterMicrotasks = () => new Promise<string>((r) => setImmediate(() => r('not yet')));

describe('SlotPool', () => {
  it('wakes the oldest waiter on release, in order, and never exceeds its size', async () => {
    const pool = new SlotPool(2);
    const a = await pool.acquire();
    const b = await pool.acquire();
    const order: string[] = [];
    const c = pool.acquire().then((r) => { order.push('c'); return r; });
    const d = pool.acquire().then((r) => { order.push('d'); return r; });
    expect(await Promise.race([c.then(() => 'woken'), afterMicrotasks()])).toBe('not yet');
    expect(pool.stats).toEqual({ used: 2, waiting: 2 });
    a();
    expect(await Promise.race([c.then(() => 'woken'), afterMicrotasks()])).toBe('woken');
    expect(order).toEqual(['c']);
    expect(pool.stats).toEqual({ used: 2, waiting: 1 });
    a(); // a second release of the same slot is ignored
    expect(pool.stats).toEqual({ used: 2, waiting: 1 });
    b();
    (await d)();
    (await c)();
    expect(order).toEqual(['c', 'd']);
    expect(pool.stats).toEqual({ used: 0, waiting: 0 });
  });

  it('an aborted wait rejects with the reason and takes no slot', async () => {
    const pool = new SlotPool(1);
    const held = await pool.acquire();
    const ac = new AbortController();
    const waiting = pool.acquire(ac.signal);
    ac.abort(new Error('cancelled'));
    await expect(waiting).rejects.toThrow('cancelled');
    expect(pool.stats).toEqual({ used: 1, waiting: 0 });
    held();
    expect(pool.stats).toEqual({ used: 0, waiting: 0 });
    await expect(pool.acquire(ac.signal)).rejects.toThrow('cancelled');
  });
});
