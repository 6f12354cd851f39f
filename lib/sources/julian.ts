import { AppError } from '../errors';
/**
 * Oracle's Julian day number (`TO_CHAR(d, 'J')`): days since 1 January 4712 BC.
 * 1970-01-01 is day 2440588.
 */
const UNIX_EPOCH_JDN = 2440588;

/** `2026-06-01` (or a timestamp string, time ignored) → its Julian day number. */
export function toJulianDay(dateText: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(dateText);
  if (!m) throw new AppError('validation', `sources: not a date for a Julian column: ${dateText}`);
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return Math.floor(ms / 86_400_000) + UNIX_EPOCH_JDN;
}

/** Julian day number → `YYYY-MM-DD`. */
export function fromJulianDay(jdn: number): string {
  return new Date((jdn - UNIX_EPOCH_JDN) * 86_400_000).toISOString().slice(0, 10);
}
