/**
 * Column statistics for manifest entries and Iceberg's single-value binary
 * serialization (spec appendix D): little-endian ints/longs/floats, big-endian
 * two's-complement minimal decimal bytes, UTF-8 strings, raw bytes.
 *
 * Comparable values: int/date/boolean → number, long/time/timestamp* → bigint,
 * float/double → number, decimal → unscaled bigint, string/binary/fixed/uuid → bytes.
 */
import { AppError } from '../errors';
import * as arrow from 'apache-arrow';
import { decimalText, isValidAt } from './arrow-util';
import { parseDecimal } from './schema';

export type Comparable = number | bigint | Uint8Array | boolean;

export interface ColumnStats {
  valueCount: number;
  nullCount: number;
  nanCount: number;
  min: Comparable | null;
  max: Comparable | null;
}

export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

export function compare(a: Comparable, b: Comparable): number {
  if (a instanceof Uint8Array && b instanceof Uint8Array) return compareBytes(a, b);
  if (typeof a === 'bigint' || typeof b === 'bigint') {
    const x = BigInt(a as number), y = BigInt(b as number);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  const x = Number(a), y = Number(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

export function emptyStats(): ColumnStats {
  return { valueCount: 0, nullCount: 0, nanCount: 0, min: null, max: null };
}

export function mergeStats(a: ColumnStats, b: ColumnStats): ColumnStats {
  return {
    valueCount: a.valueCount + b.valueCount,
    nullCount: a.nullCount + b.nullCount,
    nanCount: a.nanCount + b.nanCount,
    min: a.min === null ? b.min : b.min === null ? a.min : compare(a.min, b.min) <= 0 ? a.min : b.min,
    max: a.max === null ? b.max : b.max === null ? a.max : compare(a.max, b.max) >= 0 ? a.max : b.max,
  };
}

/** Statistics of one column chunk, computed on the buffers (no per-value objects). */
/** Rows holding the least and the greatest value by `cmp`, nulls skipped when `checkNull`; [-1, -1] when none. */
function minMaxRows(d: arrow.Data, n: number, checkNull: boolean, cmp: (a: number, b: number) => number): [number, number] {
  let mi = -1, ma = -1;
  for (let i = 0; i < n; i++) {
    if (checkNull && !isValidAt(d, i)) continue;
    if (mi < 0) { mi = i; ma = i; continue; }
    if (cmp(i, mi) < 0) mi = i; else if (cmp(i, ma) > 0) ma = i;
  }
  return [mi, ma];
}

/**
 * minMaxRows for a 64-bit integer column (longs, timestamps, times), comparing the signed high and
 * unsigned low 32-bit words: indexing the BigInt64Array would make a BigInt per row, which cost a
 * large append more than encoding these columns.
 */
function minMaxRows64(d: arrow.Data, v: BigInt64Array, n: number, checkNull: boolean): [number, number] {
  const hi = new Int32Array(v.buffer, v.byteOffset, v.length * 2), lo = new Uint32Array(v.buffer, v.byteOffset, v.length * 2);
  let mi = -1, ma = -1, mih = 0, mil = 0, mah = 0, mal = 0;
  for (let i = 0; i < n; i++) {
    if (checkNull && !isValidAt(d, i)) continue;
    const h = hi[2 * i + 1], l = lo[2 * i];
    if (mi < 0) { mi = ma = i; mih = mah = h; mil = mal = l; continue; }
    if (h < mih || (h === mih && l < mil)) { mi = i; mih = h; mil = l; } else if (h > mah || (h === mah && l > mal)) { ma = i; mah = h; mal = l; }
  }
  return [mi, ma];
}

/** Byte order of rows a and b of a Utf8/Binary column (negative, zero, positive). */
function compareRows(off: Int32Array, v: Uint8Array, a: number, b: number): number {
  const as = off[a], bs = off[b];
  const la = off[a + 1] - as, lb = off[b + 1] - bs, m = la < lb ? la : lb;
  for (let k = 0; k < m; k++) { const x = v[as + k], y = v[bs + k]; if (x !== y) return x - y; }
  return la - lb;
}

/**
 * minMaxRows for a Utf8/Binary column with the comparison a direct call (inlined), not a closure
 * passed in: minMaxRows serves several column kinds, so its comparator call stays megamorphic and
 * was most of the statistics' cost of a large append.
 */
function minMaxRowsBytes(d: arrow.Data, off: Int32Array, v: Uint8Array, n: number, checkNull: boolean): [number, number] {
  let mi = -1, ma = -1;
  for (let i = 0; i < n; i++) {
    if (checkNull && !isValidAt(d, i)) continue;
    if (mi < 0) { mi = i; ma = i; continue; }
    if (compareRows(off, v, i, mi) < 0) mi = i; else if (compareRows(off, v, i, ma) > 0) ma = i;
  }
  return [mi, ma];
}

/** Decimal text (`-12.5`) as its unscaled value at `scale` (`-1250n` at scale 2; extra digits are cut). */
export function decimalUnscaled(text: string, scale: number): bigint {
  const m = /^(-?)(\d*)(?:\.(\d*))?$/.exec(text.trim());
  if (!m) throw new AppError('validation', `lake: ${text} is not a decimal`);
  const u = BigInt((m[2] || '0') + (m[3] ?? '').padEnd(scale, '0').slice(0, scale));
  return m[1] ? -u : u;
}

export function columnStats(d: arrow.Data, iceType: string): ColumnStats {
  const n = d.length;
  const nullCount = d.nullCount;
  const st: ColumnStats = { valueCount: n, nullCount, nanCount: 0, min: null, max: null };
  if (nullCount === n) return st;
  const checkNull = nullCount > 0;
  switch (d.type.typeId) {
    case arrow.Type.Int: case arrow.Type.Date: case arrow.Type.Time: case arrow.Type.Timestamp: case arrow.Type.Float: {
      const v = d.values as unknown as ArrayLike<number | bigint>;
      if (v instanceof BigInt64Array) {
        const [mi, ma] = minMaxRows64(d, v, n, checkNull);
        const big = iceType === 'long' || iceType === 'time' || iceType.startsWith('timestamp');
        if (mi >= 0) { st.min = big ? v[mi] : Number(v[mi]); st.max = big ? v[ma] : Number(v[ma]); }
        return st;
      }
      let mn: number | bigint | undefined, mx: number | bigint | undefined;
      const isFloat = d.type.typeId === arrow.Type.Float;
      for (let i = 0; i < n; i++) {
        if (checkNull && !isValidAt(d, i)) continue;
        const x = v[i];
        if (isFloat && Number.isNaN(x)) { st.nanCount++; continue; }
        if (mn === undefined) { mn = x; mx = x; continue; }
        if (x < mn) mn = x; else if (x > mx!) mx = x;
      }
      if (mn !== undefined) {
        const big = iceType === 'long' || iceType === 'time' || iceType.startsWith('timestamp');
        st.min = big ? BigInt(mn) : Number(mn);
        st.max = big ? BigInt(mx!) : Number(mx!);
        if (iceType === 'float') { st.min = Math.fround(st.min as number); st.max = Math.fround(st.max as number); }
      }
      return st;
    }
    case arrow.Type.Bool: {
      let seen0 = false, seen1 = false;
      const v = d.values as Uint8Array;
      for (let i = 0; i < n && !(seen0 && seen1); i++) {
        if (checkNull && !isValidAt(d, i)) continue;
        const j = d.offset + i;
        if ((v[j >> 3] >> (j & 7)) & 1) seen1 = true; else seen0 = true;
      }
      st.min = seen0 ? 0 : 1; st.max = seen1 ? 1 : 0;
      return st;
    }
    case arrow.Type.Decimal: {
      const w = d.values as Uint32Array;
      const s = d.stride;
      // compare 128-bit two's complement words: top word signed, the rest unsigned
      const cmp = (a: number, b: number) => {
        const ha = w[a * s + s - 1] | 0, hb = w[b * s + s - 1] | 0;
        if (ha !== hb) return ha - hb;
        for (let k = s - 2; k >= 0; k--) { const x = w[a * s + k], y = w[b * s + k]; if (x !== y) return x - y; }
        return 0;
      };
      const [mi, ma] = minMaxRows(d, n, checkNull, cmp);
      const big = (i: number) => { let v = 0n; for (let k = s - 1; k >= 0; k--) v = (v << 32n) | BigInt(w[i * s + k]); return BigInt.asIntN(s * 32, v); };
      if (mi >= 0) { st.min = big(mi); st.max = big(ma); }
      return st;
    }
    case arrow.Type.Utf8: case arrow.Type.Binary: {
      const off = d.valueOffsets as Int32Array;
      const v = d.values as Uint8Array;
      const [mi, ma] = minMaxRowsBytes(d, off, v, n, checkNull);
      if (mi >= 0) { st.min = v.slice(off[mi], off[mi + 1]); st.max = v.slice(off[ma], off[ma + 1]); }
      return st;
    }
    case arrow.Type.FixedSizeBinary: {
      const w = (d.type as arrow.FixedSizeBinary).byteWidth;
      const v = d.values as Uint8Array;
      let mn: Uint8Array | null = null, mx: Uint8Array | null = null;
      for (let i = 0; i < n; i++) {
        if (checkNull && !isValidAt(d, i)) continue;
        const x = v.subarray(i * w, i * w + w);
        if (!mn || compareBytes(x, mn) < 0) mn = x;
        if (!mx || compareBytes(x, mx) > 0) mx = x;
      }
      st.min = mn ? mn.slice() : null; st.max = mx ? mx.slice() : null;
      return st;
    }
    default:
      return st;
  }
}

export const BOUND_TRUNCATE = 16;

/** Encode a lower (or upper) bound, truncating long strings/binaries the way Java's truncate(16) metrics do. */
export function encodeBound(type: string, v: Comparable, upper: boolean): Uint8Array | null {
  switch (type) {
    case 'boolean': return new Uint8Array([v ? 1 : 0]);
    case 'int': case 'date': { const b = Buffer.alloc(4); b.writeInt32LE(Number(v)); return new Uint8Array(b); }
    case 'long': case 'time': case 'timestamp': case 'timestamptz': case 'timestamp_ns': case 'timestamptz_ns': {
      const b = Buffer.alloc(8); b.writeBigInt64LE(BigInt(v as bigint)); return new Uint8Array(b);
    }
    case 'float': { const b = Buffer.alloc(4); b.writeFloatLE(Number(v)); return new Uint8Array(b); }
    case 'double': { const b = Buffer.alloc(8); b.writeDoubleLE(Number(v)); return new Uint8Array(b); }
    case 'string': return truncateUtf8(v as Uint8Array, upper);
    case 'binary': return truncateBytes(v as Uint8Array, upper);
    case 'uuid': return v as Uint8Array;
    default:
      if (parseDecimal(type)) return decimalBytes(v as bigint);
      if (type.startsWith('fixed')) return truncateBytes(v as Uint8Array, upper);
      return null;
  }
}

export function decodeBound(type: string, b: Uint8Array): Comparable | null {
  const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  switch (type) {
    case 'boolean': return buf[0] ? 1 : 0;
    case 'int': case 'date': return buf.length >= 4 ? buf.readInt32LE(0) : null;
    case 'long': case 'time': case 'timestamp': case 'timestamptz': case 'timestamp_ns': case 'timestamptz_ns':
      return buf.length >= 8 ? buf.readBigInt64LE(0) : buf.length >= 4 ? BigInt(buf.readInt32LE(0)) : null;
    case 'float': return buf.readFloatLE(0);
    case 'double': return buf.length >= 8 ? buf.readDoubleLE(0) : buf.readFloatLE(0);
    case 'string': case 'binary': case 'uuid': return new Uint8Array(b);
    default:
      if (parseDecimal(type)) {
        if (b.length === 0) return 0n;
        let v = 0n;
        for (const x of b) v = (v << 8n) | BigInt(x);
        return BigInt.asIntN(b.length * 8, v);
      }
      if (type.startsWith('fixed')) return new Uint8Array(b);
      return null;
  }
}

/** Minimal big-endian two's complement bytes of an unscaled decimal. */
export function decimalBytes(v: bigint): Uint8Array {
  const out: number[] = [];
  let x = v;
  for (;;) {
    const byte = Number(BigInt.asUintN(8, x));
    out.unshift(byte);
    x >>= 8n;
    if ((x === 0n && (byte & 0x80) === 0) || (x === -1n && (byte & 0x80) !== 0)) break;
  }
  return new Uint8Array(out);
}

function truncateUtf8(b: Uint8Array, upper: boolean): Uint8Array | null {
  const s = new TextDecoder().decode(b);
  const cps = Array.from(s);
  if (cps.length <= BOUND_TRUNCATE) return b;
  const head = cps.slice(0, BOUND_TRUNCATE);
  if (!upper) return new TextEncoder().encode(head.join(''));
  // upper bound: increment the last code point that can be incremented
  for (let i = head.length - 1; i >= 0; i--) {
    const cp = head[i].codePointAt(0)!;
    let next = cp + 1;
    if (next >= 0xd800 && next <= 0xdfff) next = 0xe000;
    if (next <= 0x10ffff) return new TextEncoder().encode(head.slice(0, i).join('') + String.fromCodePoint(next));
  }
  return null;
}

function truncateBytes(b: Uint8Array, upper: boolean): Uint8Array | null {
  if (b.length <= BOUND_TRUNCATE) return b;
  const head = b.slice(0, BOUND_TRUNCATE);
  if (!upper) return head;
  for (let i = head.length - 1; i >= 0; i--) {
    if (head[i] < 0xff) { const r = head.slice(0, i + 1); r[i]++; return r; }
  }
  return null;
}

const MICROS_PER_DAY = 86_400_000_000n;

/**
 * A user-supplied value (number, bigint, string, Date, bytes) as the
 * comparable form of an Iceberg type, for partition values and filters.
 */
export function toComparable(type: string, v: unknown): Comparable | null {
  if (v === null || v === undefined) return null;
  switch (type) {
    case 'boolean': return v === true || v === 1 || v === 'true' ? 1 : 0;
    case 'int': return Number(v);
    case 'date':
      if (v instanceof Date) return Math.floor(v.getTime() / 86_400_000);
      if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}/.test(v)) return Math.floor(Date.parse(v.slice(0, 10) + 'T00:00:00Z') / 86_400_000);
      return Number(v);
    case 'long': case 'time': return BigInt(v as number);
    case 'timestamp': case 'timestamptz':
      if (v instanceof Date) return BigInt(v.getTime()) * 1000n;
      if (typeof v === 'string' && !/^-?\d+$/.test(v)) {
        const s = type === 'timestamp' && !/[zZ]|[+-]\d\d:?\d\d$/.test(v) ? v + 'Z' : v;
        return BigInt(Date.parse(s)) * 1000n;
      }
      return BigInt(v as number);
    case 'float': return Math.fround(Number(v));
    case 'double': return Number(v);
    case 'string': return new TextEncoder().encode(String(v));
    case 'binary': case 'uuid':
      if (v instanceof Uint8Array) return v;
      if (type === 'uuid' && typeof v === 'string') return new Uint8Array(Buffer.from(v.replace(/-/g, ''), 'hex'));
      return new Uint8Array(Buffer.from(String(v)));
    default: {
      const d = parseDecimal(type);
      if (d) {
        if (typeof v === 'bigint') return v;
        return decimalUnscaled(String(v), d.scale);
      }
      if (type.startsWith('fixed')) return v instanceof Uint8Array ? v : new Uint8Array(Buffer.from(String(v)));
      return null;
    }
  }
}

/** A comparable value back to a readable JS value (for partition display/JSON). */
export function fromComparable(type: string, v: Comparable | null): unknown {
  if (v === null) return null;
  switch (type) {
    case 'boolean': return v === 1 || v === true;
    case 'string': return new TextDecoder().decode(v as Uint8Array);
    case 'date': return new Date(Number(v) * 86_400_000).toISOString().slice(0, 10);
    case 'timestamp': case 'timestamptz': {
      const us = v as bigint;
      return new Date(Number(us / 1000n)).toISOString();
    }
    default: {
      const d = parseDecimal(type);
      if (d) return decimalText(v as bigint, d.scale);
      if (v instanceof Uint8Array) return Buffer.from(v).toString('hex');
      return v;
    }
  }
}

export { MICROS_PER_DAY };
