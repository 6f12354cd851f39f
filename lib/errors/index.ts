/**
 * One error type for the whole product. Engines throw AppError (or plain
 * errors with a prefix such as `lake: …`); the API maps `status` to HTTP and
 * `isTransient` decides retries in one place.
 */
export type ErrorCode =
  | 'bad_request' | 'validation' | 'usage' | 'unauthorized' | 'forbidden' | 'not_found'
  | 'conflict' | 'idempotency_mismatch' | 'payload_too_large' | 'rate_limited' | 'unavailable' | 'transient' | 'fatal' | 'internal';

const STATUS: Record<ErrorCode, number> = {
  bad_request: 400, validation: 400, usage: 400, unauthorized: 401, forbidden: 403, not_found: 404,
  conflict: 409, idempotency_mismatch: 422, payload_too_large: 413, rate_limited: 429, unavailable: 503, transient: 503, fatal: 500, internal: 500,
};

/**
 * Process exit code for an error, chosen by its code (never by message text):
 * 2 for bad input (as commander and most CLIs do), 3 for a conflict (a held
 * run lock, a fresh-run guard: the slices loader's "refused"), 4 for a missing object,
 * 75 (EX_TEMPFAIL) for
 * a transient failure worth retrying, 1 otherwise.
 */
export function exitCodeFor(e: unknown): number {
  if (!(e instanceof AppError)) return 1;
  switch (e.code) {
    case 'bad_request': case 'validation': case 'usage': case 'payload_too_large': case 'idempotency_mismatch': return 2;
    case 'conflict': return 3;
    case 'not_found': return 4;
    case 'transient': case 'unavailable': case 'rate_limited': return 75;
    default: return 1;
  }
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** The input field the error is about, e.g. `payload.mode`. */
  readonly field?: string;
  constructor(code: ErrorCode, message: string, opts: { field?: string; cause?: unknown } = {}) {
    super(message, { cause: opts.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = STATUS[code];
    this.field = opts.field;
  }
}

/** Any thrown value as an Error, keeping the original as `cause`. */
export function toError(e: unknown): Error {
  if (e instanceof Error) return e;
  return new Error(typeof e === 'string' ? e : JSON.stringify(e), { cause: e });
}

// Node/network and Postgres/Oracle codes that mean "try again later": the
// connection dropped or the server is busy, not that the request is wrong.
const TRANSIENT_NODE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND', 'ECONNABORTED']);
const TRANSIENT_PG_CLASSES = ['08', '53', '57P01', '57P02', '57P03', '40001', '40P01'];
const TRANSIENT_ORA = new Set([3113, 3114, 3135, 12170, 12514, 12516, 12518, 12519, 12520, 12521, 12528, 12535, 12537, 12541, 12543, 12545, 12547, 12560, 12571, 1033, 1034, 1089, 1090, 25408, 24756]);

/**
 * The seeds' retry rule, once: only connection/transient failures are retried;
 * bad SQL, a missing table, a conversion error or bad credentials fail at once.
 */
export function isTransient(e: unknown): boolean {
  for (let cur: unknown = e, depth = 0; cur && depth < 5; cur = (cur as { cause?: unknown }).cause, depth++) {
    const err = cur as { code?: string | number; errorNum?: number; message?: string; transient?: boolean };
    if (err.transient === true) return true;
    if (cur instanceof AppError) { if (cur.code === 'transient' || cur.code === 'unavailable') return true; if (cur.code !== 'internal') return false; }
    if (typeof err.code === 'string') {
      if (TRANSIENT_NODE.has(err.code)) return true;
      if (/^[0-9A-Z]{5}$/.test(err.code) && TRANSIENT_PG_CLASSES.some((c) => err.code!.toString().startsWith(c))) return true;
      // node-oracledb thin/thick network errors (NJS-500 connection lost, DPI-1080 closed…)
      if (/^(NJS-50\d|NJS-040|DPI-1080|DPI-1010)$/.test(err.code)) return true;
    }
    if (typeof err.errorNum === 'number' && TRANSIENT_ORA.has(err.errorNum)) return true;
    const m = err.message ?? '';
    if (/^ORA-(\d{5})/.test(m) && TRANSIENT_ORA.has(Number(m.slice(4, 9)))) return true;
    if (/Connection terminated|timeout exceeded when trying to connect|connection is closed/i.test(m)) return true;
  }
  return false;
}
export { sleep, backoffDelay, withRetry, type RetryOptions } from './retry';
