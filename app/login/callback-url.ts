/**
 * Where to go after signing in: the `callbackUrl` the login page was sent with,
 * when it is a path on this site, else `/`. Refused: anything that a browser
 * could read as another origin (`//evil.com`, `/\evil.com` — browsers treat `\`
 * as `/` —, `https://evil.com`, `javascript:`), control characters, and the
 * login page itself (a loop).
 */
export function safeCallbackUrl(raw: string | string[] | null | undefined): string {
  const v = Array.isArray(raw) ? raw[0] : raw;
  if (!v || !v.startsWith('/') || v.startsWith('//') || /[\\\u0000-\u001f\u007f]/.test(v)) return '/';
  let url: URL;
  try { url = new URL(v, 'http://panel.invalid'); } catch { return '/'; }
  if (url.origin !== 'http://panel.invalid') return '/';
  if (url.pathname === '/login' || url.pathname.startsWith('/login/')) return '/';
  return `${url.pathname}${url.search}${url.hash}`;
}
