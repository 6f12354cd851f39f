import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createRepeatLimiter, formatCount } from './repeat-limiter';

// The limiter's intervals run on the test's own clock (vitest fake timers, Date
// included): each interval ends when the test says so, not after a real wait a
// loaded machine could stretch, and "nothing was written" is a fact, not a guess.
beforeEach(() => { vi.useFakeTimers(); });
afterEach(() => { vi.useRealTimers(); });

describe('repeat limiter', () => {
  it('writes the first event in full and one summary per interval for the rest', () => {
    const lines: string[] = [];
    const lim = createRepeatLimiter({ intervalMs: 60_000, write: (l) => lines.push(l) });
    const summary = (n: number, s: number) => `database unreachable, ${formatCount(n)} requests failed in the last ${s} s`;
    for (let i = 0; i < 5000; i++) lim.hit('db', () => lines.push('first: database unreachable'), summary);
    expect(lines).toEqual(['first: database unreachable']);
    vi.advanceTimersByTime(59_999);
    expect(lines).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(lines[1]).toBe('database unreachable, 5,000 requests failed in the last 60 s');
    // Still failing in the next interval: counted again, summarised again, no full line.
    for (let i = 0; i < 7; i++) lim.hit('db', () => lines.push('first again'), summary);
    vi.advanceTimersByTime(60_000);
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe('database unreachable, 7 requests failed in the last 60 s');
    // A quiet interval ends the burst without a line: the next event is written in full.
    vi.advanceTimersByTime(60_000);
    expect(lines).toHaveLength(3);
    lim.hit('db', () => lines.push('first again'), summary);
    expect(lines[3]).toBe('first again');
  });

  it('keeps kinds apart, says nothing for a single event, and flushes pending counts', () => {
    const lines: string[] = [];
    const lim = createRepeatLimiter({ intervalMs: 60_000, write: (l) => lines.push(l) });
    lim.hit('a', () => lines.push('a1'), (n) => `a x${n}`);
    lim.hit('b', () => lines.push('b1'), (n) => `b x${n}`);
    lim.hit('b', () => lines.push('b?'), (n) => `b x${n}`);
    lim.flush();
    expect(lines).toEqual(['a1', 'b1', 'b x2']);
  });
});

describe('collapseRepeats sink', () => {
  it('lets a repeated warning through once and counts the rest; info lines and distinct warnings pass', async () => {
    const { createLogger } = await import('./index');
    const { collapseRepeats } = await import('./repeat-limiter');
    const out: string[] = [];
    const logger = createLogger(collapseRepeats((r) => out.push(`${r.level} ${r.message}`), { intervalMs: 100 }), { fields: { proc: 'worker' } });
    for (let i = 0; i < 30; i++) {
      logger.warn('flows: executor tick failed', { error: 'connect ECONNREFUSED 127.0.0.1:5433' });
      logger.info('tick');
    }
    logger.warn('flows: executor tick failed', { error: 'something else' });
    expect(out.filter((l) => l.startsWith('warn'))).toEqual(['warn flows: executor tick failed', 'warn flows: executor tick failed']);
    expect(out.filter((l) => l === 'info tick')).toHaveLength(30);
    expect(out.some((l) => /repeated/.test(l))).toBe(false);
    vi.advanceTimersByTime(100);
    expect(out.find((l) => /repeated/.test(l))).toBe('warn flows: executor tick failed (repeated, 30 times in the last 1 s)');
  });
});
