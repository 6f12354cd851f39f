import { describe, expect, it } from 'vitest';
import { AppError, ERROR_CODES, exitCodeFor, isInputError, statusFor, type ErrorCode } from './index';

// The one table: every code's HTTP status and exit code, as the README and `--help` texts promise them.
const EXPECTED: [ErrorCode, number, number][] = [
  ['bad_request', 400, 2], ['validation', 400, 2], ['usage', 400, 2], ['unauthorized', 401, 1], ['forbidden', 403, 1],
  ['not_found', 404, 4], ['conflict', 409, 3], ['idempotency_mismatch', 422, 2], ['payload_too_large', 413, 2],
  ['rate_limited', 429, 75], ['unavailable', 503, 75], ['transient', 503, 75], ['fatal', 500, 1], ['internal', 500, 1],
];

describe('error codes → HTTP status and exit code', () => {
  it.each(EXPECTED)('%s → %i, exit %i', (code, status, exit) => {
    const e = new AppError(code, 'x');
    expect([e.status, statusFor(code), exitCodeFor(e)]).toEqual([status, status, exit]);
    expect(isInputError(e)).toBe(exit === 2);
  });
  it('covers every code, and anything not an AppError exits 1', () => {
    expect(Object.keys(ERROR_CODES).sort()).toEqual(EXPECTED.map(([c]) => c).sort());
    expect(exitCodeFor(new Error('boom'))).toBe(1);
    expect(exitCodeFor('a string')).toBe(1);
  });
  it('a subclass keeps its code, status and exit code', () => {
    class Refused extends AppError { constructor(m: string) { super('conflict', m); this.name = 'Refused'; } }
    const e = new Refused('held');
    expect([e instanceof AppError, e.name, e.code, e.status, exitCodeFor(e)]).toEqual([true, 'Refused', 'conflict', 409, 3]);
  });
});
