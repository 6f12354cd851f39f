/**
 * One error type for the whole product. Everything that can reach a user
 * (an API answer, a CLI's stderr, a job run's error) is an AppError with a
 * code; the code alone decides the HTTP status, the CLI's exit code and (with
 * `isTransient`) whether a retry may help. A plain `Error` is kept only for an
 * internal invariant — a state the code itself rules out (see docs/architecture.md).
 */
export type ErrorCode =
  | 'bad_request' | 'validation' | 'usage' | 'unauthorized' | 'forbidden' | 'not_found'
  | 'conflict' | 'idempotency_mismatch' | 'payload_too_large' | 'rate_limited' | 'unavailable' | 'transient' | 'fatal' | 'internal';

/**
 * The one table from an error code to its HTTP status and process exit code.
 * Exit codes: 2 for bad input (as commander and most CLIs do), 3 for a conflict
 * (a held run lock, a fresh-run guard: the slices loader's "refused"), 4 for a
 * missing object, 75 (EX_TEMPFAIL) for a transient failure worth retrying, 1 otherwise.
 */
export const ERROR_CODES: Readonly<Record<ErrorCode, { status: number; exit: number }>> = {
  bad_request: { status: 400, exit: 2 },
  validation: { status: 400, exit: 2 },
  usage: { status: 400, exit: 2 },
  unauthorized: { status: 401, exit: 1 },
  forbidden: { status: 403, exit: 1 },
  not_found: { status: 404, exit: 4 },
  conflict: { status: 409, exit: 3 },
  idempotency_mismatch: { status: 422, exit: 2 },
  payload_too_large: { status: 413, exit: 2 },
  rate_limited: { status: 429, exit: 75 },
  unavailable: { status: 503, exit: 75 },
  transient: { status: 503, exit: 75 },
  fatal: { status: 500, exit: 1 },
  internal: { status: 500, exit: 1 },
};

/** HTTP status of an error code (from ERROR_CODES). */
export function statusFor(code: ErrorCode): number {
  return ERROR_CODES[code].status;
}

/** Process exit code for an error, chosen by its code (never by message text): 1 for anything not an AppError. */
export function exitCodeFor(e: unknown): number {
  return e instanceof AppError ? ERROR_CODES[e.code].exit : 1;
}

/** Whether an error is the caller's bad input (usage, validation, a bad request): exit code 2, HTTP 400-class. */
export function isInputError(e: unknown): e is AppError {
  return e instanceof AppError && ERROR_CODES[e.code].exit === 2;
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
    this.status = ERROR_CODES[code].status;
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
