/**
 * The canonical text form of a value, shared by every side of a comparison
 * (Postgres SQL in `pg-sql.ts`, Oracle SQL in `oracle-sql.ts`, and this file
 * for values decoded from the lake). Two equal values render to the same
 * bytes, whatever engine stored them:
 *
 * - timestamps: `YYYY-MM-DD HH:MM:SS[.f]` at the precision the value has —
 *   the fraction with its trailing zeros removed, none when it is zero (so
 *   Postgres' microseconds, Oracle TIMESTAMP(n)'s fraction and an Oracle DATE's
 *   whole seconds each compare at their own precision: 10:00:00.4 ≢ 10:00:00,
 *   and 10:00:00.400 ≡ 10:00:00.4); a naive timestamp renders its wall clock,
 *   a zoned one its UTC wall clock, so naive 10:00 ≡ 10:00Z; dates render as
 *   midnight timestamps (Oracle DATE and Iceberg `date` then compare with timestamps).
 * - exact numbers (integers, decimals): plain notation, trailing fraction zeros
 *   removed (123.40 ≡ 123.4000 ≡ 123.4; 100.00 ≡ 100; -0.0 ≡ 0).
 * - a column that is floating point on either side is compared by value as a
 *   double rounded to 15 significant digits (the digits Postgres keeps in
 *   float8→numeric, DBL_DIG), then rendered like a decimal: 0.1 (double) ≡
 *   0.10 (numeric).
 * - booleans `true` / `false`; binary as lower-case hex; strings byte-exact.
 * - NULL is not a value: rows render it as a marker distinct from '' (row-hash.ts).
 */

/** How a column's values are rendered. */
export type CanonKind = 'text' | 'integer' | 'decimal' | 'float' | 'timestamp' | 'date' | 'boolean' | 'binary';

/**
 * The kind both sides use for one column given each side's own kind: a float on
 * either side makes the comparison by double value; other pairs keep their own
 * kind (each side renders its own type canonically).
 */
export function compareAsFloat(a: CanonKind, b: CanonKind): boolean {
  const num = (k: CanonKind) => k === 'integer' || k === 'decimal' || k === 'float';
  return (a === 'float' || b === 'float') && num(a) && num(b);
}

/** Remove trailing fraction zeros of a plain decimal string; '-0' → '0'. */
export function trimDecimal(s: string): string {
  let out = s;
  if (out.includes('.')) {
    let end = out.length;
    while (out.charCodeAt(end - 1) === 48 /* 0 */) end--;
    if (out.charCodeAt(end - 1) === 46 /* . */) end--;
    out = out.slice(0, end);
  }
  if (out.charCodeAt(0) === 43 /* + */) out = out.slice(1);
  if (/^-0*$/.test(out)) return '0';
  // leading zeros of the integer part ("007.5" from some drivers)
  if (/^-?0\d/.test(out)) out = out.replace(/^(-?)0+(?=\d)/, '$1');
  return out;
}

/** A number written with an exponent (1.5e-7, 1.2E+20) in plain notation, trimmed. */
export function toPlain(s: string): string {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(s);
  if (!m) return s;
  const [, sign, ip = '', fp = '', ex] = m;
  if (ex === undefined) return trimDecimal(`${sign}${ip || '0'}${fp ? '.' + fp : ''}`);
  let digits = ip + fp;
  let point = ip.length + Number(ex);
  if (point <= 0) { digits = '0'.repeat(1 - point) + digits; point = 1; }
  if (point > digits.length) digits = digits + '0'.repeat(point - digits.length);
  const intPart = digits.slice(0, point).replace(/^0+(?=\d)/, '');
  const frac = digits.slice(point);
  return trimDecimal(`${sign}${intPart}${frac ? '.' + frac : ''}`);
}

/**
 * A double as Postgres renders `float8::numeric` (C `%.15g`, round half to even
 * on exact ties), trimmed. JavaScript's toPrecision rounds exact ties up, so a
 * tie is detected on the exact expansion and resolved to even.
 */
export function canonicalDouble(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  if (x === 0) return '0';
  let p = x.toPrecision(15);
  const p16 = x.toPrecision(16);
  const mant16 = p16.replace(/^-/, '').replace(/e.*$/, '').replace('.', '');
  if (mant16.charCodeAt(15) === 53 /* 5 */) {
    // possibly an exact tie at the 16th digit: look at the exact expansion
    const exact = Math.abs(x).toPrecision(100).replace(/e.*$/, '').replace('.', '');
    if (/^0*$/.test(exact.slice(16)) && exact.charCodeAt(15) === 53) {
      const last15 = exact.charCodeAt(14) - 48;
      if (last15 % 2 === 0) {
        // round down to even: truncate at 15 digits with the exponent of x
        const e = Number((/e([+-]\d+)$/.exec(Math.abs(x).toExponential(20)) ?? ['', '0'])[1]);
        const digits = exact.slice(0, 15);
        p = `${x < 0 ? '-' : ''}${digits[0]}.${digits.slice(1)}e${e >= 0 ? '+' : ''}${e}`;
      }
    }
  }
  return toPlain(p);
}

/** Exact decimal text of an unscaled integer and a scale, trimmed. */
export function canonicalScaled(unscaled: bigint | number, scale: number): string {
  if (scale <= 0) return trimDecimal(String(BigInt(unscaled) * 10n ** BigInt(-scale)));
  let s = String(unscaled);
  const neg = s.startsWith('-');
  if (neg) s = s.slice(1);
  if (s.length <= scale) s = '0'.repeat(scale - s.length + 1) + s;
  const ip = s.slice(0, s.length - scale);
  const fp = s.slice(s.length - scale);
  return trimDecimal(`${neg ? '-' : ''}${ip}.${fp}`);
}

function pad2(n: number): string { return n < 10 ? '0' + n : String(n); }
function pad4(n: number): string { return n < 0 ? '-' + pad4(-n) : n < 10 ? '000' + n : n < 100 ? '00' + n : n < 1000 ? '0' + n : String(n); }

/** Civil date of a day number since 1970-01-01 (H. Hinnant's algorithm). */
export function civilFromDays(z0: number): [number, number, number] {
  const z = z0 + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const y = yoe + era * 400;
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return [m <= 2 ? y + 1 : y, m, d];
}

/** Day number since 1970-01-01 of a civil date. */
export function daysFromCivil(y0: number, m: number, d: number): number {
  const y = m <= 2 ? y0 - 1 : y0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m > 2 ? m - 3 : m + 9) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/**
 * A formatter of whole seconds since the epoch (read as a UTC wall clock) to
 * `YYYY-MM-DD HH:MM:SS`, remembering the last day it formatted (one per column:
 * consecutive rows mostly share a day).
 */
export function epochSecondsFormatter(): (sec: number) => string {
  let lastDay = NaN;
  let lastDayText = '';
  return (sec) => {
    const days = Math.floor(sec / 86400);
    let rem = sec - days * 86400;
    if (days !== lastDay) {
      const [y, m, d] = civilFromDays(days);
      lastDay = days;
      lastDayText = `${pad4(y)}-${pad2(m)}-${pad2(d)} `;
    }
    const hh = Math.floor(rem / 3600); rem -= hh * 3600;
    const mi = Math.floor(rem / 60);
    return lastDayText + pad2(hh) + ':' + pad2(mi) + ':' + pad2(rem - mi * 60);
  };
}

const sharedFormatter = epochSecondsFormatter();
/** `YYYY-MM-DD HH:MM:SS` of whole seconds since the epoch, read as a UTC wall clock. */
export function canonicalEpochSeconds(sec: number): string {
  return sharedFormatter(sec);
}

/** Whole seconds since the epoch of a timestamp value given in `unit`s, truncated toward the past. */
export function epochSecondsOf(v: number | bigint, unit: 'second' | 'milli' | 'micro' | 'nano'): number {
  if (typeof v === 'bigint') {
    const div = unit === 'second' ? 1n : unit === 'milli' ? 1000n : unit === 'micro' ? 1_000_000n : 1_000_000_000n;
    let q = v / div;
    if (v % div !== 0n && v < 0n) q -= 1n;
    return Number(q);
  }
  const div = unit === 'second' ? 1 : unit === 'milli' ? 1e3 : unit === 'micro' ? 1e6 : 1e9;
  return Math.floor(v / div);
}

/** `.f` of a sub-second count of `digits`-digit units (trailing zeros removed), '' when zero. */
export function fractionText(sub: number, digits: number): string {
  if (sub === 0) return '';
  let s = String(sub).padStart(digits, '0');
  let end = s.length;
  while (s.charCodeAt(end - 1) === 48) end--;
  s = s.slice(0, end);
  return '.' + s;
}

/** Julian day number (Oracle `TO_CHAR(d, 'J')`) of a day number since 1970-01-01. */
export function julianDayOf(daysSinceEpoch: number): number { return daysSinceEpoch + 2440588; }

/**
 * Canonical text of one JavaScript value of a given kind, or null for NULL.
 * Used for values from drivers and Arrow `get()`; the lake decode loop has a
 * faster per-column path (`arrow-canonical.ts`) that renders the same text.
 * @param asFloat compare this column as a double (see compareAsFloat).
 */
export function canonicalValue(v: unknown, kind: CanonKind, asFloat = false): string | null {
  if (v === null || v === undefined) return null;
  if (asFloat) {
    const n = typeof v === 'number' ? v : Number(typeof v === 'bigint' ? v : String(v));
    return canonicalDouble(n);
  }
  switch (kind) {
    case 'integer': return typeof v === 'bigint' ? v.toString() : trimDecimal(String(v));
    case 'decimal':
      if (typeof v === 'number') return canonicalDouble(v);
      return toPlain(String(v));
    case 'float': return canonicalDouble(typeof v === 'number' ? v : Number(v));
    case 'boolean': return v === true || v === 't' || v === 'true' || v === 1 ? 'true' : 'false';
    case 'binary': return Buffer.from(v as Uint8Array).toString('hex');
    case 'date':
    case 'timestamp': {
      if (v instanceof Date || typeof v === 'number' || typeof v === 'bigint') {
        // a JavaScript time value: epoch milliseconds
        const ms = v instanceof Date ? v.getTime() : v;
        const sec = epochSecondsOf(ms, 'milli');
        return canonicalEpochSeconds(sec) + fractionText(Number(BigInt(ms) - BigInt(sec) * 1000n), 3);
      }
      return canonicalTimestampText(String(v));
    }
    default:
      return typeof v === 'string' ? v : String(v);
  }
}

/**
 * A timestamp written as text (`2026-01-02 03:04:05.678`, `2026-01-02T03:04:05+02:00`,
 * `2026-01-02`): an offset converts to UTC, no offset keeps the wall clock.
 */
export function canonicalTimestampText(s: string): string {
  const m = /^(-?\d{4,})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?(?:\.(\d+))?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/.exec(s.trim());
  if (!m) return s;
  const [, y, mo, d, hh = '0', mi = '0', ss = '0', frac = '', tz] = m;
  let sec = daysFromCivil(Number(y), Number(mo), Number(d)) * 86400 + Number(hh) * 3600 + Number(mi) * 60 + Number(ss);
  if (tz && tz !== 'Z') {
    const t = /^([+-])(\d{2}):?(\d{2})?$/.exec(tz)!;
    const off = (Number(t[2]) * 3600 + Number(t[3] ?? 0) * 60) * (t[1] === '-' ? -1 : 1);
    sec -= off;
  }
  const f = frac.replace(/0+$/, '');
  return canonicalEpochSeconds(sec) + (f ? '.' + f : '');
}
