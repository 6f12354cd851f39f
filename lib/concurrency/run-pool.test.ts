import { describe, expect, it } from 'vitest';
import { runPool, WorkQueue } from './run-pool';

/** A task that records how many run at once and finishes when told. */
function tracker() {
  let running = 0, peak = 0;
  const started: number[] = [];
  const gates = new Map<number, () => void>();
  const fn = async (n: number) => {
    running++; peak = Math.max(peak, running); started.push(n);
    await new Promise<void>((r) => gates.set(n, r));
    running--;
  };
  const tick = () => new Promise((r) => setImmediate(r));
  return { fn, started, peak: () => peak, open: async (n: number) => { gates.get(n)!(); await tick(); await tick(); }, tick };
}

describe('runPool', () => {
  it('runs at most `limit` at once, in list order, a freed slot taken at once', async () => {
    const t = tracker();
    const done = runPool([1, 2, 3, 4, 5], 2, t.fn);
    await t.tick();
    expect(t.started).toEqual([1, 2]);
    await t.open(2);
    expect(t.started).toEqual([1, 2, 3]);
    for (const n of [1, 3, 4, 5]) await t.open(n);
    await done;
    expect(t.peak()).toBe(2);
  });
  it('rejects with the first error, after the others ran', async () => {
    const ran: number[] = [];
    await expect(runPool([1, 2, 3], 1, async (n) => { ran.push(n); if (n === 2) throw new Error('two'); })).rejects.toThrow('two');
    expect(ran).toEqual([1, 2, 3]);
  });
});

describe('WorkQueue', () => {
  it('drains pushed items with bounded concurrency; done settles after close and the last item', async () => {
    const t = tracker();
    const q = new WorkQueue<number>(2, t.fn);
    q.push(1); q.push(2); q.push(3);
    await t.tick();
    expect(t.started).toEqual([1, 2]);
    let settled = false;
    void q.done.then(() => { settled = true; });
    await t.open(1); await t.open(2); await t.open(3);
    expect(settled).toBe(false); // not closed yet
    q.push(4);
    q.close();
    await t.tick();
    await t.open(4);
    await q.done;
    expect(t.started).toEqual([1, 2, 3, 4]);
    expect(t.peak()).toBe(2);
  });
  it('a failure before close is reported by done, not as an unhandled rejection', async () => {
    const q = new WorkQueue<number>(1, async (n) => { if (n === 1) throw new Error('one'); });
    q.push(1); q.push(2);
    await new Promise((r) => setImmediate(r));
    q.close();
    await expect(q.done).rejects.toThrow('one');
  });
});
