import { describe, expect, it } from 'vitest';
import { listenUrl, publicOrigin, publicUrl } from './public-url';

describe('public URL', () => {
  it('TRIBUTARY_PUBLIC_URL wins, its path kept without a trailing slash; the origin drops the path', () => {
    const env = { TRIBUTARY_PUBLIC_URL: 'https://data.example.com/tributary/', HOST: '0.0.0.0', PORT: 9000 };
    expect(publicUrl(env)).toBe('https://data.example.com/tributary');
    expect(publicOrigin(env)).toBe('https://data.example.com');
  });
  it('else http://HOST:PORT, a wildcard bind read as loopback, IPv6 in brackets, the schema defaults when unset', () => {
    expect(publicUrl({ HOST: '0.0.0.0', PORT: 9000 })).toBe('http://127.0.0.1:9000');
    expect(publicUrl({ HOST: '::', PORT: 9000 })).toBe('http://127.0.0.1:9000');
    expect(publicOrigin({ HOST: '::1', PORT: 9000 })).toBe('http://[::1]:9000');
    expect(listenUrl({ HOST: 'panel.lan', PORT: 80 })).toBe('http://panel.lan:80');
    expect(publicUrl()).toBe('http://127.0.0.1:8765');
  });
});
