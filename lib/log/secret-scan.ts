/**
 * The generic credential scanner: job params (enqueue validation) and
 * connection params (the non-secret part) must carry no secret. Refused are
 * secret-looking keys at any depth and strings that embed credentials — a URL
 * or DSN with a password (`scheme://user:pw@host`), an Oracle connect string
 * `user/pw@host`. The same rules redact what older rows already hold, before a
 * viewer sees them (`redactSecrets`, `redactText`). Pure: no I/O.
 */

// Compared on the key with `_`, `-` and `.` removed, lower-cased, so
// `api_key`, `apiKey` and `API-KEY` are one key. Whole words at the end of the
// key (`dbPassword`, `clientSecret`, `authToken`), not substrings of others
// (`tokenizer`, `passes`, `secretKeys` are fine).
const SECRET_KEY = /(password|passwd|passphrase|pwd|secret|token|apikey|accesskey|privatekey|secretkey|credentials?|authorization|connectionstring|sessionkey|clientsecret|cookie)$/;
const SECRET_KEY_ALLOWED = new Set(['secretkeys', 'secretnames', 'tokencount', 'maxtokens']);

/** Whether an object key names a secret. */
export function isSecretKey(key: string): boolean {
  const k = key.replace(/[-_.\s]/g, '').toLowerCase();
  return SECRET_KEY.test(k) && !SECRET_KEY_ALLOWED.has(k);
}

// scheme://user:password@host (password non-empty); also inside longer text.
const URL_CREDENTIALS = /([a-z][a-z0-9+.-]*:\/\/[^\s:/@?#]*:)([^\s@/?#]+)@/gi;
// Oracle `user/password@host[:port]/service` (the whole value, or a word of a text).
const ORACLE_CREDENTIALS = /(^|[\s"'=(])([A-Za-z][\w$#]*\/)([^\s/@"']+)@(?=[\w.\-[\]]+)/g;
// key=value or key: value inside free text (`password=hunter2`, libpq keyword strings).
const INLINE_SECRET = /\b(password|passwd|pwd|secret|token|api[_-]?key|private[_-]?key)(\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s,;&"']+)/gi;

/** Why a string value is refused, or null when it carries no credential. */
export function credentialInText(s: string): string | null {
  if (new RegExp(URL_CREDENTIALS.source, 'i').test(s)) return 'a URL carrying a password (scheme://user:password@host)';
  if (new RegExp(ORACLE_CREDENTIALS.source).test(s)) return 'an Oracle connect string carrying a password (user/password@host)';
  return null;
}

/** Where the first secret is in a value, as `prefix.a.b[0]`, with why; null when none. */
export function findSecret(value: unknown, prefix = 'params'): { field: string; reason: string } | null {
  const walk = (v: unknown, at: string, depth: number): { field: string; reason: string } | null => {
    if (depth > 32) return null;
    if (typeof v === 'string') {
      const why = credentialInText(v);
      return why ? { field: at, reason: why } : null;
    }
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) { const r = walk(v[i], `${at}[${i}]`, depth + 1); if (r) return r; }
      return null;
    }
    if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
        const field = at ? `${at}.${k}` : k;
        // An empty or null value holds no secret (forms send blanks).
        if (isSecretKey(k) && x !== null && x !== undefined && x !== '' && x !== false) {
          return { field, reason: 'a secret-looking key (credentials belong in a connection\'s secrets)' };
        }
        const r = walk(x, field, depth + 1);
        if (r) return r;
      }
    }
    return null;
  };
  return walk(value, prefix, 0);
}

export const REDACTED = '***';

/** Replace credentials inside a text (URLs, Oracle connect strings, `password=…`) with `***`. */
export function redactText(s: string): string {
  return s
    .replace(URL_CREDENTIALS, `$1${REDACTED}@`)
    .replace(ORACLE_CREDENTIALS, `$1$2${REDACTED}@`)
    .replace(INLINE_SECRET, `$1$2${REDACTED}`);
}

/** A deep copy with secret-keyed values and credentials inside strings replaced by `***`. */
export function redactSecrets<T>(value: T): T {
  const walk = (v: unknown, depth: number): unknown => {
    if (depth > 32) return v;
    if (typeof v === 'string') return redactText(v);
    if (Array.isArray(v)) return v.map((x) => walk(x, depth + 1));
    if (v && typeof v === 'object' && !(v instanceof Date)) {
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) =>
        [k, isSecretKey(k) && x !== null && x !== undefined && x !== '' ? REDACTED : walk(x, depth + 1)]));
    }
    return v;
  };
  return walk(value, 0) as T;
}
