/**
 * The one reading of a number that may arrive as text (an environment
 * variable, a CLI flag) or as JSON (a job payload). Every schema that accepts
 * "an integer" or "a number" — the environment (`env.ts`), the request fields
 * (`request.ts`), the slices requests — reads it through these two, so `' 7 '`,
 * `'7'` and `7` mean the same everywhere and `''`, `'7x'` or `'1e3'` mean
 * nothing anywhere.
 */

/** An integer: a safe integer number, or text of an optional sign and digits (blanks around ignored); else null. */
export function readInteger(v: unknown): number | null {
  if (typeof v === 'number') return Number.isSafeInteger(v) ? v : null;
  if (typeof v !== 'string' || !/^\s*-?\d+\s*$/.test(v)) return null;
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : null;
}

/** A finite number, or text of an optional sign, digits and an optional decimal part (blanks around ignored); else null. */
export function readDecimal(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v !== 'string' || !/^\s*-?\d+(\.\d+)?\s*$/.test(v)) return null;
  return Number(v);
}
