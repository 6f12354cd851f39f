import { describe, expect, it } from 'vitest';
import { AppError } from './index';
import { backoffDelay, sleep, withRetry } from './retry';

const transient = () => Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });

describe('withRetry', () => {
  it('retries transient errors and returns the first success, telling onRetry before each wait', async () => {
    const seen: { attempt: number; attempts: number; delayMs: number }[] = [];
    const out = await withRetry(async (n) => { if (n < 3) throw transient(); return `ok on ${n}`; }, { retries: 3, delayMs: 1, jitter: 0, onRetry: (_e, i) => { seen.push(i); } });
    expect(out).toBe('ok on 3');
    expect(seen).toEqual([{ attempt: 1, attempts: 4, delayMs: 1 }, { attempt: 2, attempts: 4, delayMs: 1 }]);
  });
  it('throws a non-retryable error at once, and the last error once retries are spent', async () => {
    let calls = 0;
    const fatal = new AppError('fatal', 'etl: bad SQL');
    await expect(withRetry(async () => { calls++; throw fatal; }, { retries: 5, delayMs: 1 })).rejects.toBe(fatal);
    expect(calls).toBe(1);
    calls = 0;
    await expect(withRetry(async () => { calls++; throw transient(); }, { retries: 2, delayMs: (n) => backoffDelay(n, 1, 4) })).rejects.toThrow(/ECONNREFUSED/);
    expect(calls).toBe(3);
  });
  it('an abort during the wait rejects with the signal reason and stops retrying', async () => {
    const ac = new AbortController();
    let calls = 0;
    const p = withRetry(async () => { calls++; setImmediate(() => ac.abort(new Error('interrupted'))); throw transient(); }, { retries: 5, delayMs: 60_000, signal: ac.signal });
    await expect(p).rejects.toThrow('interrupted');
    expect(calls).toBe(1);
  });
  it('uses a custom retryable rule', async () => {
    let calls = 0;
    await expect(withRetry(async () => { calls++; throw new Error('x'); }, { retries: 2, delayMs: 0, retryable: () => true })).rejects.toThrow('x');
    expect(calls).toBe(3);
  });
});

describe('jitter', () => {
  it('draws each wait between delay × (1 − jitter) and delay, and not all alike', async () => {
    const waits: number[] = [];
    await expect(withRetry(async () => { throw transient(); }, { retries: 40, delayMs: 2, jitter: 1, onRetry: (_e, i) => { waits.push(i.delayMs); } })).rejects.toThrow();
    expect(waits).toHaveLength(40);
    expect(waits.every((w) => w >= 0 && w <= 2)).toBe(true);
    expect(new Set(waits).size).toBeGreaterThan(1);
    const half: number[] = [];
    await expect(withRetry(async () => { throw transient(); }, { retries: 10, delayMs: 20, onRetry: (_e, i) => { half.push(i.delayMs); } })).rejects.toThrow();
    expect(half.every((w) => w >= 10 && w <= 20)).toBe(true);
  });
  it('awaits an async onRetry before the next try', async () => {
    const order: string[] = [];
    await withRetry(async (n) => { order.push(`try ${n}`); if (n < 2) throw transient(); return n; },
      { retries: 1, delayMs: 0, onRetry: async () => { await new Promise((r) => setImmediate(r)); order.push('noted'); } });
    expect(order).toEqual(['try 1', 'noted', 'try 2']);
  });
});

describe('backoffDelay and sleep', () => {
  it('doubles from the base per retry up to the cap', () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffDelay(n, 1000, 30_000))).toEqual([1000, 2000, 4000, 8000, 16000, 30000]);
  });
  it('sleep rejects with the abort reason, also when already aborted', async () => {
    await expect(sleep(60_000, AbortSignal.abort(new Error('gone')))).rejects.toThrow('gone');
    await expect(sleep(0)).resolves.toBeUndefined();
  });
});
