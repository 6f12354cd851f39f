import { z } from 'zod';
import { AppError, type ErrorCode } from '../errors';

/** The one error body every /api/v1 route answers with. */
export interface ApiErrorBody { error: { code: ErrorCode; message: string; field?: string } }

/**
 * Issue #2 ("Bad input") asks for 400 on an oversized body, like the other
 * input errors; the code still says `payload_too_large`.
 */
export const OVERSIZED_BODY_STATUS = 400;

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

/** Turn anything thrown in a handler into the JSON error response. */
export function toErrorResponse(e: unknown): Response {
  if (e instanceof AppError) {
    const status = e.code === 'payload_too_large' ? OVERSIZED_BODY_STATUS : e.status;
    // A refusal that knows when to come back (a full queue: lib/jobs/admission.ts) says so.
    const retryAfter = (e as { retryAfterSeconds?: unknown }).retryAfterSeconds;
    const headers: Record<string, string> | undefined = e.code === 'unauthorized' ? { 'WWW-Authenticate': 'Bearer realm="tributary"' }
      : typeof retryAfter === 'number' ? { 'Retry-After': String(Math.ceil(retryAfter)) } : undefined;
    return errorResponse(e.code, e.message, status, e.field, headers);
  }
  if (e instanceof z.ZodError) {
    const issue = e.issues[0];
    const field = zodField(issue);
    return errorResponse('validation', `${field ? field + ': ' : ''}${issue.message}`, 400, field || undefined);
  }
  const pgCode = (e as { code?: unknown })?.code;
  if (pgCode === 'P2025') return errorResponse('not_found', 'not found', 404);
  // Anything else is our bug or an outage: log it whole, answer without internals.
  console.error('api: unhandled error', e);
  return errorResponse('internal', 'internal error — see the server log', 500);
}
