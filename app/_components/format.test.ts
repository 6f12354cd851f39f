import { describe, expect, it } from 'vitest';
import { timeAgo } from './format';

describe('timeAgo', () => {
  const now = Date.parse('2026-12-02T12:00:00Z');
  it('reads past moments as "ago" and future ones as "in"', () => {
    expect(timeAgo('2026-12-02T11:59:58Z', now)).toBe('just now');
    expect(timeAgo('2026-12-02T11:59:20Z', now)).toBe('40s ago');
    expect(timeAgo('2026-12-02T12:00:40Z', now)).toBe('in 40s');
    expect(timeAgo('2026-12-02T15:00:00Z', now)).toBe('in 3h');
    expect(timeAgo('2026-11-30T12:00:00Z', now)).toBe('2d ago');
    expect(timeAgo('2026-12-02T12:00:02Z', now)).toBe('in a moment');
    expect(timeAgo(null, now)).toBe('—');
  });
});
