/**
 * Key values given as plain values (a CLI, JSON, the reconciler's canonical
 * text) turned into Arrow columns of the table's key types, exactly: a
 * timestamp key keeps its microseconds (`2026-01-02 03:04:05.123456`), which
 * a `Date` or `Date.parse` would cut to milliseconds and read in the local
 * zone — so a delete by such a key would match no row.
 */
import * as arrow from 'apache-arrow';
import { AppError } from '../errors';
import { makeBatch } from './arrow-util';
import { decimalValue } from './text-values';

const TS = /^(-?\d{4,})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/;

/**
 * Microseconds since the epoch of a timestamp text read as a UTC wall clock
 * (an explicit offset converts to UTC); digits past the sixth are cut, as the
 * lake's microsecond columns hold no more.
 */
export function timestampTextMicros(s: string): bigint | null {
  const m = TS.exec(s.trim());
  if (!m) return null;
  const [, y, mo, d, hh = '0', mi = '0', ss = '0', frac = '', tz] = m;
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(hh), Number(mi), Number(ss));
  if (Number.isNaN(ms)) return null;
  // Date.UTC maps years 0–99 to 1900–1999: set the year again
  const day = new Date(ms); day.setUTCFullYear(Number(y));
  let us = BigInt(day.getTime()) * 1000n + BigInt((frac + '000000').slice(0, 6));
  if (tz && tz !== 'Z') {
    const t = /^([+-])(\d{2}):?(\d{2})?$/.exec(tz)!;
    const off = BigInt((Number(t[2]) * 3600 + Number(t[3] ?? 0) * 60) * 1_000_000);
    us = t[1] === '-' ? us + off : us - off;
  }
  return us;
}

function timestampValue(v: unknown, unit: arrow.TimeUnit, field: string): bigint {
  let us: bigint | null;
  if (typeof v === 'bigint') return v; // already in the column's unit
  if (v instanceof Date) us = BigInt(v.getTime()) * 1000n;
  else if (typeof v === 'number') us = BigInt(Math.round(v * 1000)); // epoch milliseconds (a JS time value)
  else us = timestampTextMicros(String(v));
  if (us === null) throw new AppError('validation', `lake: key ${field}: ${JSON.stringify(v)} is not a timestamp (YYYY-MM-DD HH:MM:SS[.ffffff])`, { field });
  switch (unit) {
    case arrow.TimeUnit.SECOND: return us / 1_000_000n;
    case arrow.TimeUnit.MILLISECOND: return us / 1000n;
    case arrow.TimeUnit.NANOSECOND: return us * 1000n;
    default: return us;
  }
}

function dateDays(v: unknown, field: string): number {
  if (v instanceof Date) return Math.floor(v.getTime() / 86_400_000);
  if (typeof v === 'number') return v;
  const us = timestampTextMicros(String(v));
  if (us === null) throw new AppError('validation', `lake: key ${field}: ${JSON.stringify(v)} is not a date (YYYY-MM-DD)`, { field });
  return Number(us / 86_400_000_000n);
}

function bytesOf(v: unknown): Uint8Array {
  if (v instanceof Uint8Array) return v;
  const s = String(v);
  // the reconciler's canonical binary is lower-case hex
  return /^([0-9a-fA-F]{2})*$/.test(s) ? Uint8Array.from(Buffer.from(s, 'hex')) : Uint8Array.from(Buffer.from(s, 'utf8'));
}

/** One column of key values as Arrow data of `f`'s type. */
export function keyColumn(f: arrow.Field, values: unknown[]): arrow.Data {
  const n = values.length;
  const t = f.type;
  if (t.typeId === arrow.Type.Timestamp) {
    // built directly: the Arrow builders take epoch milliseconds (a double) and lose microseconds
    const data = new BigInt64Array(n);
    const valid = new Uint8Array((n + 7) >> 3);
    let nulls = 0;
    values.forEach((v, i) => {
      if (v === null || v === undefined) { nulls++; return; }
      data[i] = timestampValue(v, (t as arrow.Timestamp).unit, f.name);
      valid[i >> 3] |= 1 << (i & 7);
    });
    return arrow.makeData({ type: t as arrow.Timestamp, length: n, nullCount: nulls, nullBitmap: nulls ? valid : undefined, data } as never);
  }
  const conv = (v: unknown): unknown => {
    if (v === null || v === undefined) return null;
    switch (t.typeId) {
      case arrow.Type.Int: return (t as arrow.Int).bitWidth === 64 ? BigInt(String(v)) : Number(v);
      case arrow.Type.Float: return Number(v);
      case arrow.Type.Utf8: case arrow.Type.LargeUtf8: return String(v);
      case arrow.Type.Decimal: return decimalValue(t as arrow.Decimal, String(v).trim());
      case arrow.Type.Date: return new Date(dateDays(v, f.name) * 86_400_000);
      case arrow.Type.Bool: return v === true || v === 'true' || v === 't' || v === 1;
      case arrow.Type.Binary: case arrow.Type.LargeBinary: return bytesOf(v);
      default: return v;
    }
  };
  return arrow.vectorFromArray(values.map(conv), t).data[0];
}

/** Key tuples (one value per column of `fields`) as a batch of those columns. */
export function keyBatch(fields: arrow.Field[], rows: unknown[][]): arrow.RecordBatch {
  const cols = fields.map((f, j) => keyColumn(f, rows.map((r) => r[j])));
  return makeBatch(new arrow.Schema(fields), cols as never, rows.length);
}
