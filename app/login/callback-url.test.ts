import { describe, expect, it } from 'vitest';
import { safeCallbackUrl } from './callback-url';

describe('safeCallbackUrl', () => {
  it('keeps a same-site path with its query and fragment', () => {
    expect(safeCallbackUrl('/runs')).toBe('/runs');
    expect(safeCallbackUrl('/runs?status=failed&page=2#top')).toBe('/runs?status=failed&page=2#top');
    expect(safeCallbackUrl('/lake/default.orders')).toBe('/lake/default.orders');
    expect(safeCallbackUrl(['/dq', '/x'])).toBe('/dq');
  });

  it('refuses every other origin (no open redirect)', () => {
    for (const bad of ['//evil.com', '//evil.com/runs', 'https://evil.com', 'http://evil.com/runs', '/\\evil.com', '/\\/evil.com',
      '\\\\evil.com', 'javascript:alert(1)', 'evil.com', '/%0d%0aSet-Cookie:x', '/\tevil', '/\nevil', ' /runs']) {
      const got = safeCallbackUrl(bad);
      expect(got, bad).toMatch(/^\/(?![/\\])/);
      expect(new URL(got, 'http://panel.invalid').origin, bad).toBe('http://panel.invalid');
    }
    expect(safeCallbackUrl('//evil.com')).toBe('/');
    expect(safeCallbackUrl('https://evil.com')).toBe('/');
    expect(safeCallbackUrl('/\\evil')).toBe('/');
  });

  it('falls back to / when missing or pointing at the login page', () => {
    expect(safeCallbackUrl(undefined)).toBe('/');
    expect(safeCallbackUrl('')).toBe('/');
    expect(safeCallbackUrl('/login')).toBe('/');
    expect(safeCallbackUrl('/login?callbackUrl=/runs')).toBe('/');
  });
});
