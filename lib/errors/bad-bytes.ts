import { AppError } from './index';

/**
 * Bytes no field of Tributary may hold, refused at the edge with a 400 naming
 * the field instead of failing deep inside (Postgres refuses NUL in text and
 * jsonb with 22021/22P05; `decodeURIComponent` throws URIError on a broken
 * escape): NUL, lone UTF-16 surrogates (what `"\ud800"` in JSON decodes to —
 * not encodable as UTF-8), invalid UTF-8, malformed percent-encoding, and JSON
 * nested deeper than a bound (JSON.parse and every walker after it recurse).
 * Pure (errors layer, so every layer may use it): used by lib/api's handler, the REST catalog, the sign-in route and the Next proxy.
 */

/** Deepest JSON nesting accepted in a body. (Default: 64) */
export const MAX_JSON_DEPTH = 64;

const BROKEN_ESCAPE = /%(?![0-9A-Fa-f]{2})/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

const bad = (field: string, why: string) => new AppError('bad_request', `${field}: ${why}`, { field });

/** Why a decoded string cannot be kept, or null when it can. */
export function textProblem(s: string): string | null {
  if (s.includes('\u0000')) return 'contains a NUL byte (\\u0000)';
  if (LONE_SURROGATE.test(s)) return 'contains a lone UTF-16 surrogate (not valid Unicode)';
  return null;
}

/** Refuse a decoded string that cannot be kept, naming `field`. */
export function assertText(s: string, field: string): string {
  const why = textProblem(s);
  if (why) throw bad(field, why);
  return s;
}

/** Percent-decode one URL component strictly (`+` as space in a query), naming `field` when it cannot be. */
export function decodeComponent(raw: string, field: string, plusIsSpace = false): string {
  if (BROKEN_ESCAPE.test(raw)) throw bad(field, 'malformed percent-encoding (a % not followed by two hex digits)');
  let s: string;
  try {
    s = decodeURIComponent(plusIsSpace ? raw.replace(/\+/g, ' ') : raw);
  } catch {
    throw bad(field, 'percent-encoding that is not valid UTF-8');
  }
  return assertText(s, field);
}

/** Check a request URL: every path segment (field `path`) and every query name and value (`query.<name>`). */
export function assertCleanUrl(url: string): void {
  const u = new URL(url);
  for (const seg of u.pathname.split('/')) if (seg) decodeComponent(seg, 'path');
  const search = u.search.slice(1);
  if (!search) return;
  for (const pair of search.split('&')) {
    if (!pair) continue;
    const eq = pair.indexOf('=');
    const rawName = eq < 0 ? pair : pair.slice(0, eq);
    const name = decodeComponent(rawName, 'query', true);
    if (eq >= 0) decodeComponent(pair.slice(eq + 1), `query.${name}`, true);
  }
}

/**
 * Check a Cookie header: each value must percent-decode (cookies are
 * decoded with `decodeURIComponent` by the session reader and by next-auth)
 * and hold no NUL. Field `cookie.<name>`.
 */
export function assertCleanCookies(header: string | null | undefined): void {
  if (!header) return;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    assertText(name, 'cookie');
    let value = part.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    decodeComponent(value, `cookie.${name}`);
  }
}

/** Everything of a request but its body: path segments, query, cookies. */
export function assertCleanRequestHead(req: { url: string; headers: Headers }): void {
  assertCleanUrl(req.url);
  assertCleanCookies(req.headers.get('cookie'));
}

/** Decode a body as UTF-8, refusing invalid sequences (field `body`). */
export function decodeUtf8(bytes: Uint8Array, field = 'body'): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw bad(field, 'not valid UTF-8');
  }
}

/**
 * Refuse JSON text nested deeper than `max` before parsing it: a linear scan
 * counting brackets outside strings, so a 100k-deep body costs one pass and
 * never reaches JSON.parse's (or any walker's) recursion.
 */
export function assertJsonDepth(text: string, max = MAX_JSON_DEPTH, field = 'body'): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) throw bad(field, `JSON nested deeper than ${max} levels`);
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
}

/**
 * Refuse a parsed JSON value holding a string (or key) that cannot be kept,
 * naming it as the API names body fields (`params.name`, `nodes.0.label`).
 */
export function assertCleanJson(value: unknown, at = ''): void {
  const name = (k: string | number) => (at ? `${at}.${k}` : String(k));
  if (typeof value === 'string') { assertText(value, at || 'body'); return; }
  if (Array.isArray(value)) { value.forEach((v, i) => assertCleanJson(v, name(i))); return; }
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      assertText(k, name(k));
      assertCleanJson(v, name(k));
    }
  }
}

/** Parse a JSON body with every check above: depth first, then JSON.parse, then the strings. */
export function parseCleanJson(text: string, field = 'body'): unknown {
  assertJsonDepth(text, MAX_JSON_DEPTH, field);
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new AppError('bad_request', `malformed JSON body: ${(e as Error).message}`, { field, cause: e });
  }
  assertCleanJson(v);
  return v;
}
