import * as arrow from 'apache-arrow';
import { toArrowType } from './arrow-types';
import type { ColumnType } from './types';
import { parseTimestampMicros, toScaledBigInt, wallClockMicros, writeDecimal128, daysFromMicros, formatMicros, formatDays, scaledToText } from './values';

const enc = new TextEncoder();

/**
 * One column of a batch being built straight into Arrow buffers (no per-row
 * objects). Rows are written by index 0..n-1 in order; `finish(n)` hands the
 * buffers to Arrow and starts fresh ones.
 */
export class ColumnBuilder {
  readonly type: ColumnType;
  readonly arrowType: arrow.DataType;
  readonly capacity: number;
  validity!: Uint8Array;
  nulls = 0;
  i32!: Int32Array;
  i64!: BigInt64Array;
  f32!: Float32Array;
  f64!: Float64Array;
  words!: Uint32Array;
  bits!: Uint8Array;
  offsets!: Int32Array;
  bytes!: Uint8Array;
  byteLen = 0;

  constructor(type: ColumnType, capacity: number) {
    this.type = type;
    this.arrowType = toArrowType(type);
    this.capacity = capacity;
    this.reset();
  }

  reset(): void {
    const n = this.capacity;
    this.validity = new Uint8Array((n + 7) >> 3).fill(0xff);
    this.nulls = 0;
    switch (this.type.kind) {
      case 'int': case 'date': this.i32 = new Int32Array(n); break;
      case 'long': case 'timestamp': case 'timestamptz': this.i64 = new BigInt64Array(n); break;
      case 'float': this.f32 = new Float32Array(n); break;
      case 'double': this.f64 = new Float64Array(n); break;
      case 'decimal': this.words = new Uint32Array(n * 4); break;
      case 'boolean': this.bits = new Uint8Array((n + 7) >> 3); break;
      case 'string': case 'binary':
        this.offsets = new Int32Array(n + 1);
        if (!this.bytes || this.bytes.length > (1 << 24)) this.bytes = new Uint8Array(Math.max(1024, n * 16));
        else this.bytes = new Uint8Array(this.bytes.length);
        this.byteLen = 0;
        break;
    }
  }

  setNull(i: number): void {
    this.validity[i >> 3] &= ~(1 << (i & 7));
    this.nulls++;
    if (this.offsets) this.offsets[i + 1] = this.byteLen;
  }

  /** Variable-length value from a byte range (no copy of the source until here). */
  setBytes(i: number, src: Uint8Array, start: number, end: number): void {
    const len = end - start;
    this.ensure(len);
    this.bytes.set(src.subarray(start, end), this.byteLen);
    this.byteLen += len;
    this.offsets[i + 1] = this.byteLen;
  }

  setString(i: number, s: string): void {
    // worst case 3 bytes per UTF-16 unit
    this.ensure(s.length * 3);
    const r = enc.encodeInto(s, this.bytes.subarray(this.byteLen));
    this.byteLen += r.written;
    this.offsets[i + 1] = this.byteLen;
  }

  private ensure(extra: number): void {
    if (this.byteLen + extra <= this.bytes.length) return;
    let cap = this.bytes.length * 2;
    while (cap < this.byteLen + extra) cap *= 2;
    const nb = new Uint8Array(cap);
    nb.set(this.bytes.subarray(0, this.byteLen));
    this.bytes = nb;
  }

  setBool(i: number, v: boolean): void {
    if (v) this.bits[i >> 3] |= 1 << (i & 7);
  }

  /** Any JS value, converted to this column's type (the slower generic path: Oracle, synthetic). */
  set(i: number, v: unknown): void {
    if (v === null || v === undefined) { this.setNull(i); return; }
    const t = this.type;
    switch (t.kind) {
      case 'int': this.i32[i] = Number(v); return;
      case 'long': this.i64[i] = typeof v === 'bigint' ? v : BigInt(typeof v === 'number' ? Math.trunc(v) : String(v).trim()); return;
      case 'float': this.f32[i] = Number(v); return;
      case 'double': this.f64[i] = Number(v); return;
      case 'decimal': writeDecimal128(this.words, i, toScaledBigInt(v as string, t.scale)); return;
      case 'boolean': this.setBool(i, v === true || v === 1 || v === 't' || v === 'true' || v === 'Y'); return;
      case 'date':
        if (v instanceof Date) { this.i32[i] = daysFromMicros(wallClockMicros(v)); return; }
        this.i32[i] = typeof v === 'number' ? v : daysFromMicros(parseTimestampMicros(String(v)));
        return;
      case 'timestamp':
        this.i64[i] = v instanceof Date ? wallClockMicros(v) : typeof v === 'bigint' ? v : parseTimestampMicros(String(v));
        return;
      case 'timestamptz':
        this.i64[i] = v instanceof Date ? BigInt(v.getTime()) * 1000n : typeof v === 'bigint' ? v : parseTimestampMicros(String(v));
        return;
      case 'string':
        if (v instanceof Date) { this.setString(i, formatMicros(wallClockMicros(v)).replace(/\.000000$/, '')); return; }
        if (v instanceof Uint8Array) { this.setString(i, Buffer.from(v).toString('hex')); return; }
        this.setString(i, typeof v === 'object' ? JSON.stringify(v) : String(v));
        return;
      case 'binary':
        if (v instanceof Uint8Array) { this.setBytes(i, v, 0, v.length); return; }
        this.setString(i, String(v));
        return;
    }
  }

  finish(length: number): arrow.Data {
    const nullBitmap = this.nulls > 0 ? this.validity.subarray(0, (length + 7) >> 3) : undefined;
    const base = { type: this.arrowType, length, nullCount: this.nulls, nullBitmap } as const;
    let d: arrow.Data;
    switch (this.type.kind) {
      case 'int': case 'date': d = arrow.makeData({ ...base, data: this.i32.subarray(0, length) } as never); break;
      case 'long': case 'timestamp': case 'timestamptz': d = arrow.makeData({ ...base, data: this.i64.subarray(0, length) } as never); break;
      case 'float': d = arrow.makeData({ ...base, data: this.f32.subarray(0, length) } as never); break;
      case 'double': d = arrow.makeData({ ...base, data: this.f64.subarray(0, length) } as never); break;
      case 'decimal': d = arrow.makeData({ ...base, data: this.words.subarray(0, length * 4) } as never); break;
      case 'boolean': d = arrow.makeData({ ...base, data: this.bits.subarray(0, (length + 7) >> 3) } as never); break;
      case 'string': case 'binary':
        d = arrow.makeData({ ...base, valueOffsets: this.offsets.subarray(0, length + 1), data: this.bytes.subarray(0, this.byteLen) } as never);
        break;
    }
    this.reset();
    return d;
  }
}

/** A whole batch: one builder per target field, plus constant columns. */
export function assembleBatch(schema: arrow.Schema, columns: arrow.Data[], length: number): arrow.RecordBatch {
  const struct = arrow.makeData({ type: new arrow.Struct(schema.fields), length, nullCount: 0, children: columns });
  return new arrow.RecordBatch(schema, struct);
}

/** A column holding one value (or null) on every row. */
export function constantColumn(type: ColumnType, value: unknown, length: number): arrow.Data {
  const b = new ColumnBuilder(type, length);
  for (let i = 0; i < length; i++) b.set(i, value);
  return b.finish(length);
}

/** Canonical watermark text of a tracked value. */
export function trackedText(type: ColumnType, cmp: number | bigint | string): string {
  switch (type.kind) {
    case 'timestamp': return formatMicros(cmp as bigint);
    case 'timestamptz': return `${formatMicros(cmp as bigint)} +00:00`;
    case 'date': return formatDays(cmp as number);
    case 'decimal': return typeof cmp === 'bigint' ? scaledToText(cmp, type.scale) : String(cmp);
    default: return String(cmp);
  }
}
