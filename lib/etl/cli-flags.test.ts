import { describe, expect, it } from 'vitest';
import { settingsFromFlags } from './cli';
import { DEFAULT_SETTINGS } from './settings';

describe('etl flags → settings', () => {
  const base = { tablesFile: 'tables.json' };
  it('defaults, overrides and unit-bearing delays', () => {
    const s = settingsFromFlags({ ...base, mode: 'incremental', branch: 'a, b', retries: '0', retryDelay: '5m', compactDeletedRatio: '0' });
    expect(s.mode).toBe('INCREMENTAL');
    expect(s.branches).toEqual(['a', 'b']);
    expect(s.retries).toBe(0);
    expect(s.retryDelayMs).toBe(300_000);
    expect(s.compactDeletedRatio).toBe(0);
    expect(settingsFromFlags({ ...base, mode: 'INITIAL' }).compactDeletedRatio).toBe(DEFAULT_SETTINGS.compactDeletedRatio);
  });
  it.each([
    [{ mode: 'FULL' }, /^--mode: expected INITIAL or INCREMENTAL/],
    [{ mode: 'INITIAL', category: 'all' }, /^--category: /],
    [{ mode: 'INITIAL', maxTableWorkers: '0' }, /^--max-table-workers: expected an integer ≥ 1/],
    [{ mode: 'INITIAL', compactDeletedRatio: '1.5' }, /^--compact-deleted-ratio: expected a number from 0 to 1/],
    [{ mode: 'INITIAL', compactDeletedRatio: 'half' }, /^--compact-deleted-ratio: /],
    [{ mode: 'INITIAL', compression: 'brotli' }, /^--compression: /],
  ])('%j is refused naming the flag', (flags, msg) => {
    expect(() => settingsFromFlags({ ...base, ...flags } as never)).toThrow(msg);
  });
});
