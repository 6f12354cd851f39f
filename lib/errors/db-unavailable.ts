/**
 * Whether an error means "the database cannot be reached right now" (the
 * server is down, restarting, shutting down, or the connection dropped) as
 * opposed to a bug or bad input. The one place that reads connection errors
 * for the API (503 + Retry-After), the health probe, the pages and the
 * worker's pause: pg's, Prisma's and the driver adapter's shapes all land here.
 */
const NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNABORTED', 'EAI_AGAIN']);
// SQLSTATE: class 08 (connection exception), 57P01 admin shutdown, 57P02 crash
// shutdown, 57P03 cannot connect now (starting up, in recovery, shutting down).
const PG_CODE = /^(08[0-9A-Z]{3}|57P0[123])$/;
// Prisma's "can't reach", "timed out", "server closed the connection" codes.
const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017']);
// @prisma/adapter-pg's translated kinds for the same conditions.
const ADAPTER_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout']);
const MESSAGES = /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|connection is closed|Can't reach database server|the database system is (starting up|shutting down|in recovery|not yet accepting connections)|terminating connection due to administrator command|server closed the connection unexpectedly/i;

export function isDatabaseUnavailable(e: unknown): boolean {
  const seen = new Set<unknown>();
  const queue: unknown[] = [e];
  while (queue.length && seen.size < 12) {
    const cur = queue.shift();
    if (!cur || typeof cur !== 'object' || seen.has(cur)) continue;
    seen.add(cur);
    const err = cur as { code?: unknown; kind?: unknown; message?: unknown; cause?: unknown; meta?: { driverAdapterError?: unknown }; errors?: unknown };
    if (typeof err.code === 'string' && (NODE_CODES.has(err.code) || PG_CODE.test(err.code) || PRISMA_CODES.has(err.code))) return true;
    if (typeof err.kind === 'string' && ADAPTER_KINDS.has(err.kind)) return true;
    if (err.kind === 'postgres' && typeof (cur as { originalCode?: unknown }).originalCode === 'string' && PG_CODE.test((cur as { originalCode: string }).originalCode)) return true;
    if (typeof err.message === 'string' && MESSAGES.test(err.message)) return true;
    queue.push(err.cause, err.meta?.driverAdapterError);
    // AggregateError (a connect to 127.0.0.1 and ::1 both refused)
    if (Array.isArray(err.errors)) queue.push(...err.errors);
  }
  return false;
}

/** Seconds a client should wait before retrying while the database is unavailable. */
export const DB_RETRY_AFTER_SECONDS = 5;
