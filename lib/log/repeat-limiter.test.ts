import { describe, expect, it } from 'vitest';
import { createRepeatLimiter, formatCount } from './repeat-limiter';

const until = async (cond: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!cond()) { if (Date.now() > end) throw new Error('condition not met in time'); await new Promise((r) => setTimeout(r, 10)); }
};

describe('repeat limiter', () => {
  it('writes the first event in full and one summary per interval for the rest', async () => {
    const lines: string[] = [];
    const lim = createRepeatLimiter({ intervalMs: 100, write: (l) => lines.push(l) });
    const summary = (n: number, s: number) => `database unreachable, ${formatCount(n)} requests failed in the last ${s} s`;
    for (let i = 0; i < 5000; i++) lim.hit('db', () => lines.push('first: database unreachable'), summary);
    expect(lines).toEqual(['first: database unreachable']);
    await until(() => lines.length === 2);
    expect(lines[1]).toMatch(/^database unreachable, 5,000 requests failed in the last \d+ s$/);
    // Still failing in the next interval: counted again, summarised again, no full line.
    for (let i = 0; i < 7; i++) lim.hit('db', () => lines.push('first again'), summary);
    await until(() => lines.length === 3);
    expect(lines[2]).toMatch(/^database unreachable, 7 requests failed/);
    // A quiet interval ends the burst: the next event is written in full.
    await new Promise((r) => setTimeout(r, 250));
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
    await until(() => out.some((l) => /repeated/.test(l)));
    expect(out.find((l) => /repeated/.test(l))).toMatch(/^warn flows: executor tick failed \(repeated, 30 times in the last \d+ s\)$/);
  });
});
