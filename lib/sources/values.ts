import { AppError } from '../errors';
/**
 * Conversions between JS values and Tributary's stored representations:
 * timestamps as microseconds since the Unix epoch (wall clock for naive
 * timestamps), dates as days, decimals as scaled bigints.
 */
const US_PER_DAY = 86_400_000_000n;

/** A Date's local wall clock (what Oracle DATE / a naive timestamp means) → µs. */
export function wallClockMicros(d: Date): bigint {
  return BigInt(Date.UTC(d.getFullYear(), d.getMonth(), d.getDate(), d.getHours(), d.getMinutes(), d.getSeconds(), d.getMilliseconds())) * 1000n;
}

/** `YYYY-MM-DD[ HH:MM:SS[.ffffff]][±hh:mm|Z]` → µs since the epoch (an offset is applied, none means UTC). */
export function parseTimestampMicros(s: string): bigint {
  const m = /^(-?\d{4,})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/.exec(s.trim());
  if (!m) throw new AppError('validation', `sources: cannot read ${JSON.stringify(s)} as a timestamp`);
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0));
  let us = BigInt(ms) * 1000n + BigInt((m[7] ?? '').padEnd(6, '0').slice(0, 6) || '0');
  if (m[8] && m[8] !== 'Z') {
    const sign = m[8][0] === '-' ? -1 : 1;
    const digits = m[8].slice(1).replace(':', '');
    const mins = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || 0);
    us -= BigInt(sign * mins) * 60_000_000n;
  }
  return us;
}

/** µs since the epoch → `YYYY-MM-DD HH:MM:SS.ffffff` (UTC fields). */
export function formatMicros(us: bigint): string {
  let ms = us / 1000n;
  let frac = us % 1_000_000n;
  if (frac < 0n) { frac += 1_000_000n; }
  if (us < 0n && us % 1000n !== 0n) ms -= 1n;
  const iso = new Date(Number(ms)).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}.${frac.toString().padStart(6, '0')}`;
}

export function formatDays(days: number): string {
  return new Date(days * 86_400_000).toISOString().slice(0, 10);
}

export function daysFromMicros(us: bigint): number {
  return Number((us - (((us % US_PER_DAY) + US_PER_DAY) % US_PER_DAY)) / US_PER_DAY);
}

/** Decimal text (or number/bigint) → unscaled bigint at `scale`, rounding half away from zero. */
export function toScaledBigInt(v: string | number | bigint, scale: number): bigint {
  if (typeof v === 'bigint') return v * 10n ** BigInt(scale);
  const s = typeof v === 'number' ? numberToPlain(v) : v.trim();
  const m = /^([+-])?(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(s);
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) throw new AppError('validation', `sources: cannot read ${JSON.stringify(v)} as a decimal`);
  let intPart = m[2] || '0';
  let frac = m[3] ?? '';
  const exp = Number(m[4] ?? 0);
  if (exp > 0) { frac = frac.padEnd(exp, '0'); intPart += frac.slice(0, exp); frac = frac.slice(exp); }
  else if (exp < 0) { intPart = intPart.padStart(-exp + 1, '0'); frac = intPart.slice(intPart.length + exp) + frac; intPart = intPart.slice(0, intPart.length + exp); }
  let digits = intPart + frac.padEnd(scale, '0').slice(0, scale);
  let out = BigInt(digits || '0');
  if (frac.length > scale && Number(frac[scale]) >= 5) out += 1n;
  void digits;
  return m[1] === '-' ? -out : out;
}

function numberToPlain(n: number): string {
  if (!Number.isFinite(n)) throw new AppError('validation', `sources: cannot store ${n} as a decimal`);
  return Number.isInteger(n) && Math.abs(n) < 1e21 ? BigInt(n).toString() : n.toString();
}

/** Unscaled bigint at `scale` → decimal text. */
export function scaledToText(v: bigint, scale: number): string {
  const neg = v < 0n;
  const s = (neg ? -v : v).toString().padStart(scale + 1, '0');
  const out = scale === 0 ? s : `${s.slice(0, s.length - scale)}.${s.slice(s.length - scale)}`;
  return neg ? `-${out}` : out;
}

/** Write a 128-bit two's complement little-endian value into 4 uint32 words. */
export function writeDecimal128(words: Uint32Array, index: number, v: bigint): void {
  const u = BigInt.asUintN(128, v);
  const o = index * 4;
  words[o] = Number(u & 0xffffffffn);
  words[o + 1] = Number((u >> 32n) & 0xffffffffn);
  words[o + 2] = Number((u >> 64n) & 0xffffffffn);
  words[o + 3] = Number((u >> 96n) & 0xffffffffn);
}

/**
 * A PostgreSQL array in its text form (`{Trailers,NULL,"a{b}c","x\"y"}`, as
 * text-mode drivers return it) → its elements as text, NULL as null; nested
 * dimensions are flattened in row-major order, as the binary reader does. The
 * delimiter is `,` (every type but `box`).
 */
export function parsePgArray(s: string): (string | null)[] {
  const out: (string | null)[] = [];
  let i = 0;
  if (s[0] === '[') i = s.indexOf('=') + 1; // explicit bounds: `[0:1]={…}`
  for (; i < s.length; i++) {
    const ch = s[i];
    if (ch === '{' || ch === '}' || ch === ',' || ch === ' ' || ch === '\t' || ch === '\n') continue;
    if (ch === '"') {
      let v = '';
      for (i++; i < s.length && s[i] !== '"'; i++) v += s[i] === '\\' ? s[++i] : s[i];
      out.push(v);
      continue;
    }
    let j = i;
    let v = '';
    for (; j < s.length && s[j] !== ',' && s[j] !== '}'; j++) v += s[j] === '\\' ? s[++j] : s[j];
    const raw = v.trim();
    out.push(raw === 'NULL' ? null : raw);
    i = j - 1;
  }
  return out;
}
