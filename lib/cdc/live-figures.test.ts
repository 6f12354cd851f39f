import { describe, expect, it } from 'vitest';
import { lagSeconds, rowsPerSecond } from './live-figures';

const t0 = Date.parse('2026-12-02T12:00:00Z');
const at = (s: number) => new Date(t0 + s * 1000);

describe('lagSeconds', () => {
  it('is 0 when the slot has everything acknowledged, whatever the times', () => {
    expect(lagSeconds({ lagBytes: 0, sourceCommitAt: at(-3600), caughtUpAt: null }, t0)).toBe(0);
  });
  it('counts from the later of the last applied source commit and the last caught-up moment', () => {
    expect(lagSeconds({ lagBytes: 100, sourceCommitAt: at(-30), caughtUpAt: at(-90) }, t0)).toBe(30);
    expect(lagSeconds({ lagBytes: 100, sourceCommitAt: at(-300), caughtUpAt: at(-5) }, t0)).toBe(5);
    expect(lagSeconds({ lagBytes: 100, sourceCommitAt: null, caughtUpAt: at(-12) }, t0)).toBe(12);
  });
  it('is unknown without the source, or without any complete point; never negative', () => {
    expect(lagSeconds({ lagBytes: null, sourceCommitAt: at(-30), caughtUpAt: null }, t0)).toBeNull();
    expect(lagSeconds({ lagBytes: 5, sourceCommitAt: null, caughtUpAt: null }, t0)).toBeNull();
    expect(lagSeconds({ lagBytes: 5, sourceCommitAt: at(3), caughtUpAt: null }, t0)).toBe(0); // clocks a little apart
  });
});

describe('rowsPerSecond', () => {
  const base = { streaming: true, rowsApplied: 1000, rateRows: 400, rateAt: at(-30), ratePrevRows: 100, ratePrevAt: at(-90) };
  it('averages from the older sample', () => {
    expect(rowsPerSecond(base, t0)).toBe(10); // (1000 − 100) / 90 s
  });
  it('uses the newer sample until there is an older one', () => {
    expect(rowsPerSecond({ ...base, ratePrevRows: null, ratePrevAt: null }, t0)).toBe(20); // (1000 − 400) / 30 s
  });
  it('is 0 for a stream that is not running, or without samples', () => {
    expect(rowsPerSecond({ ...base, streaming: false }, t0)).toBe(0);
    expect(rowsPerSecond({ ...base, rateRows: null, rateAt: null, ratePrevRows: null, ratePrevAt: null }, t0)).toBe(0);
  });
});
