import { AppError } from '../errors';
import type { Env } from '../config/env';
import { publicOrigin } from '../config/public-url';

export { publicOrigin };

/**
 * Cookies ride along on cross-site requests, so a state change made with the
 * session cookie must prove it comes from the panel itself: an `Origin` equal
 * to the public URL's (or, when a proxy rewrites the host, the browser's own
 * `Sec-Fetch-Site: same-origin`), and a JSON content type, which a cross-site
 * form cannot send without a CORS preflight. `Origin: null` (sandboxed frames,
 * some redirects) and a missing Origin are refused. Bearer-token requests are
 * not subject to this: browsers never add tokens on their own.
 */
export function checkCookieMutation(req: Request, env: Pick<Env, 'TRIBUTARY_PUBLIC_URL' | 'HOST' | 'PORT'>): void {
  const origin = req.headers.get('origin');
  const fetchSite = req.headers.get('sec-fetch-site');
  const expected = publicOrigin(env);
  const sameOrigin = (origin !== null && origin !== 'null' && origin === expected) || (fetchSite === 'same-origin' && origin !== 'null');
  if (!sameOrigin) {
    const got = origin === null ? 'no Origin header' : `Origin ${origin.slice(0, 200)}`;
    throw new AppError('forbidden', `cross-origin request refused (${got}; expected ${expected}): use an API token for scripts`);
  }
  const type = (req.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json') {
    throw new AppError('forbidden', 'a request made with the session cookie must send Content-Type: application/json');
  }
}
