import type { Env } from './env';

type UrlEnv = Partial<Pick<Env, 'TRIBUTARY_PUBLIC_URL' | 'HOST' | 'PORT'>>;

/**
 * Where this machine reaches the panel: `http://HOST:PORT`, a wildcard bind
 * (0.0.0.0, ::) read as 127.0.0.1, an IPv6 host in brackets. HOST and PORT
 * default as in the environment schema. (Default: http://127.0.0.1:8765)
 */
export function listenUrl(env: UrlEnv = {}): string {
  const raw = env.HOST ?? '127.0.0.1';
  const host = raw === '0.0.0.0' || raw === '::' ? '127.0.0.1' : raw;
  return `http://${host.includes(':') ? `[${host}]` : host}:${env.PORT ?? 8765}`;
}

/**
 * The panel's base URL as users reach it, for links in alerts and the
 * origin check: TRIBUTARY_PUBLIC_URL (a path prefix kept, trailing slashes
 * dropped), else `listenUrl`. The one place that default is computed.
 */
export function publicUrl(env: UrlEnv = {}): string {
  return env.TRIBUTARY_PUBLIC_URL ? env.TRIBUTARY_PUBLIC_URL.replace(/\/+$/, '') : listenUrl(env);
}

/** The public URL's origin (scheme, host, port): what a browser sends as `Origin`. */
export function publicOrigin(env: UrlEnv = {}): string {
  return new URL(publicUrl(env)).origin;
}
