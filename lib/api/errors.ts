import { z } from 'zod';
import { AppError, statusFor, type ErrorCode } from '../errors';
import { DB_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from '../errors/db-unavailable';
import { consoleSink, createLogger, type Fields, type Logger } from '../log';
import { createRepeatLimiter, formatCount } from '../log/repeat-limiter';

/** The one error body every /api/v1 route answers with. */
export interface ApiErrorBody { error: { code: ErrorCode; message: string; field?: string } }

export function errorResponse(code: ErrorCode, message: string, status: number, field?: string, headers?: HeadersInit): Response {
  const body: ApiErrorBody = { error: { code, message, ...(field ? { field } : {}) } };
  return Response.json(body, { status, headers });
}

/** Where a zod issue points, as `a.b.0.c` with the part's prefix (`query.`…) dropped for the body. */
export function zodField(issue: z.core.$ZodIssue, prefix?: string): string {
  const parts = [...(prefix ? [prefix] : []), ...issue.path.map(String)];
  // An unrecognized key names itself in `keys`, not in `path`.
  if (issue.code === 'unrecognized_keys' && issue.keys.length) parts.push(issue.keys[0]);
  return parts.join('.');
}

/** The web process's log for what no route handled: through the logger, so secrets in it are redacted. */
const webLogger: Logger = createLogger(consoleSink(), { fields: { scope: 'api' } });

// One limiter per web process: an outage at 150 req/s writes two lines a minute, not 150 stack traces a second.
// The limiter is keyed by text only; each line still goes through the logger it was given. It sits on
// globalThis, not in the server deps: it also counts errors from before the deps could open (an outage),
// and a route bundle that evaluates this module again must share it.
type Line = { message: string; fields?: Fields };
const g = globalThis as typeof globalThis & { __tributaryApiLog?: ReturnType<typeof createRepeatLimiter<Line>> };
const apiLog = (g.__tributaryApiLog ??= createRepeatLimiter<Line>({ write: (l) => webLogger.error(l.message, l.fields) }));

/** A short reason for a connection error, for the one full log line of an outage. */
function reasonOf(e: unknown): string {
  for (let cur = e as { message?: unknown; cause?: unknown } | undefined, i = 0; cur && i < 4; cur = cur.cause as typeof cur, i++) {
    if (typeof cur.message === 'string' && cur.message.trim()) return cur.message.split('\n').map((x) => x.trim()).filter(Boolean).pop()!;
  }
  return String(e);
}

/** The messages of an error's causes, for the log line (a driver's error often says more than its wrapper). */
function causeOf(e: unknown): string | undefined {
  const out: string[] = [];
  for (let cur = (e as { cause?: unknown })?.cause, i = 0; cur && i < 4; cur = (cur as { cause?: unknown }).cause, i++) {
    out.push(cur instanceof Error ? cur.message : String(cur));
  }
  return out.length ? out.join(' <- ') : undefined;
}

/**
 * The answer while the database cannot be reached: 503 with `Retry-After`,
 * and one log line per outage (plus a count per minute) instead of one per request.
 */
export function databaseUnavailableResponse(e: unknown, log: Logger = webLogger): Response {
  apiLog.hit('db-unavailable',
    () => log.error('api: database unreachable: answering 503 until it is back', { reason: reasonOf(e) }),
    (n, s) => ({ message: `api: database unreachable, ${formatCount(n)} requests failed in the last ${s} s` }));
  return errorResponse('unavailable', `database unavailable: the server cannot reach its database right now; retry in ${DB_RETRY_AFTER_SECONDS} s`, 503, undefined,
    { 'Retry-After': String(DB_RETRY_AFTER_SECONDS), 'Cache-Control': 'no-store' });
}

/**
 * Turn anything thrown in a handler into the JSON error response: an AppError's
 * status comes from its code (lib/errors' one table); anything else is logged
 * whole through `log` (redacting) and answered 500.
 */
export function toErrorResponse(e: unknown, log: Logger = webLogger): Response {
  // Before AppError: getServerDeps' "DATABASE_URL is not set" is an AppError of its own, but a
  // connection error wrapped in an AppError's cause is still an outage.
  if (!(e instanceof AppError && e.code !== 'internal') && isDatabaseUnavailable(e)) return databaseUnavailableResponse(e, log);
  // `internal` marks a wrapper around something unexpected (a driver's error, a failed read): our bug or
  // the machine's, answered and logged as any unhandled error, its text kept out of the answer.
  if (e instanceof AppError && e.code !== 'internal') {
    // A server-side failure the caller cannot fix (corrupt file, failed run) is logged too.
    if (e.code === 'fatal') logUnhandled(e, log);
    // A refusal that knows when to come back (a full queue: lib/jobs/admission.ts) says so.
    const retryAfter = (e as { retryAfterSeconds?: unknown }).retryAfterSeconds;
    const headers: Record<string, string> | undefined = e.code === 'unauthorized' ? { 'WWW-Authenticate': 'Bearer realm="tributary"' }
      : typeof retryAfter === 'number' ? { 'Retry-After': String(Math.ceil(retryAfter)) } : undefined;
    return errorResponse(e.code, e.message, e.status, e.field, headers);
  }
  if (e instanceof z.ZodError) {
    const issue = e.issues[0];
    const field = zodField(issue);
    return errorResponse('validation', `${field ? field + ': ' : ''}${issue.message}`, statusFor('validation'), field || undefined);
  }
  const pgCode = (e as { code?: unknown })?.code;
  if (pgCode === 'P2025') return errorResponse('not_found', 'not found', statusFor('not_found'));
  logUnhandled(e, log);
  return errorResponse('internal', 'internal error — see the server log', statusFor('internal'));
}

/** Anything else is our bug: log it whole the first time, then count its repeats. */
function logUnhandled(e: unknown, log: Logger): void {
  const message = e instanceof Error ? e.message : String(e);
  apiLog.hit(`unhandled:${message}`, () => log.error('api: unhandled error', { error: message, stack: e instanceof Error ? e.stack : undefined, cause: causeOf(e) }),
    (n, s) => ({ message: `api: unhandled error repeated, ${formatCount(n)} times in the last ${s} s`, fields: { error: message.split('\n')[0] } }));
}
