import * as arrow from 'apache-arrow';
import { toArrowType } from './arrow-types';
import type { ColumnType } from './types';
import { parsePgArray, parseTimestampMicros, toScaledBigInt, wallClockMicros, writeDecimal128, daysFromMicros, formatMicros, formatDays, scaledToText } from './values';
import { AppError } from '../errors';
import { takeBuffer } from '../cache/array-buffers';

const enc = new TextEncoder();

/**
 * One column of a batch being built straight into Arrow buffers (no per-row
 * objects). Rows are written by index 0..n-1 in order; `finish(n)` hands the
 * buffers to Arrow and starts fresh ones.
 */
export class ColumnBuilder {
  readonly type: ColumnType;
  readonly arrowType: arrow.DataType;
  /** Rows the current buffers hold (grows by doubling up to `maxCapacity`). */
  capacity: number;
  readonly maxCapacity: number;
  /** Buffers handed to Arrow by `finish`: fresh ones are allocated on the next `prepare`. */
  private stale = true;
  validity!: Uint8Array;
  nulls = 0;
  i32!: Int32Array;
  i64!: BigInt64Array;
  /** `i64` as 32-bit words (low word first: little-endian), for writing 64-bit values without BigInt. */
  i64w!: Int32Array;
  f32!: Float32Array;
  f64!: Float64Array;
  words!: Uint32Array;
  bits!: Uint8Array;
  offsets!: Int32Array;
  bytes!: Uint8Array;
  /** bytes' size, kept when the buffer itself goes to another thread (reset sizes the next one by it). */
  private bytesCap = 0;
  byteLen = 0;
  /** A list column's elements (one builder for all rows' elements; `offsets` index into it). */
  readonly child: ColumnBuilder | null = null;
  /** Elements written so far (list columns). */
  elements = 0;

  /**
   * `capacity` is the most rows one batch holds; buffers start small (so a
   * read of a few rows allocates little) and double as rows arrive — callers
   * call `prepare(row)` before writing row `row`.
   */
  constructor(type: ColumnType, capacity: number) {
    this.type = type;
    this.arrowType = toArrowType(type);
    this.maxCapacity = Math.max(1, capacity);
    this.capacity = Math.min(this.maxCapacity, 4096);
    // a batch's rows may hold any number of elements: the child grows without the row cap
    if (type.kind === 'list') this.child = new ColumnBuilder(type.element, 1 << 30);
  }

  /** A list column's next element slot in `child` (elements written before `endList(i)` belong to row `i`). */
  addElement(): number {
    const k = this.elements++;
    this.child!.prepare(k);
    return k;
  }

  /** Close row `i` of a list column after its elements. */
  endList(i: number): void { this.offsets[i + 1] = this.elements; }

  /** Make room for row `row` (allocating after a `finish`, doubling when full). */
  prepare(row: number): void {
    if (this.stale) { this.reset(); return; }
    if (row < this.capacity) return;
    this.grow(Math.min(this.maxCapacity, Math.max(row + 1, this.capacity * 2)));
  }

  private grow(n: number): void {
    const copy = <T extends { length: number; set(a: ArrayLike<number | bigint>): void }>(old: T, make: (k: number) => T, k: number): T => { const x = make(k); x.set(old as never); return x; };
    const v = new Uint8Array((n + 7) >> 3).fill(0xff);
    v.set(this.validity);
    this.validity = v;
    switch (this.type.kind) {
      case 'int': case 'date': this.i32 = copy(this.i32, (k) => new Int32Array(k), n); break;
      case 'long': case 'timestamp': case 'timestamptz': this.setI64(copy(this.i64, (k) => new BigInt64Array(k), n)); break;
      case 'float': this.f32 = copy(this.f32, (k) => new Float32Array(k), n); break;
      case 'double': this.f64 = copy(this.f64, (k) => new Float64Array(k), n); break;
      case 'decimal': this.words = copy(this.words, (k) => new Uint32Array(k), n * 4); break;
      case 'boolean': this.bits = copy(this.bits, (k) => new Uint8Array(k), (n + 7) >> 3); break;
      case 'string': case 'binary': case 'list': this.offsets = copy(this.offsets, (k) => new Int32Array(k), n + 1); break;
    }
    this.capacity = n;
  }

  private setI64(a: BigInt64Array): void {
    this.i64 = a;
    this.i64w = new Int32Array(a.buffer, a.byteOffset, a.length * 2);
  }

  /** Drop the current rows; buffers are allocated again on the next `prepare`. */
  discard(): void { this.stale = true; this.nulls = 0; this.child?.discard(); }

  /**
   * Fresh buffers for the next batch (the last ones went to Arrow), taken from the buffers an
   * encoder thread gave back when there are some of the size (lib/cache/array-buffers.ts: fresh
   * memory is slow to first touch here, and a batch's buffers are the same sizes batch after batch).
   */
  reset(): void {
    this.stale = false;
    const n = this.capacity;
    this.validity = new Uint8Array((n + 7) >> 3).fill(0xff);
    this.nulls = 0;
    switch (this.type.kind) {
      case 'int': case 'date': this.i32 = new Int32Array(takeBuffer(n * 4)); break;
      case 'long': case 'timestamp': case 'timestamptz': this.setI64(new BigInt64Array(takeBuffer(n * 8))); break;
      case 'float': this.f32 = new Float32Array(takeBuffer(n * 4)); break;
      case 'double': this.f64 = new Float64Array(takeBuffer(n * 8)); break;
      case 'decimal': this.words = new Uint32Array(takeBuffer(n * 16)); break;
      case 'boolean': this.bits = new Uint8Array((n + 7) >> 3); break;
      case 'string': case 'binary':
        this.offsets = new Int32Array(takeBuffer((n + 1) * 4));
        // the last batch's bytes were handed to an encoder thread and are detached now (length 0): size
        // the next by the remembered length (an empty buffer here made ensure() double 0 for ever)
        if (!this.bytesCap || this.bytesCap > (1 << 24)) this.bytes = new Uint8Array(Math.max(1024, n * 16));
        else this.bytes = new Uint8Array(takeBuffer(this.bytesCap));
        this.bytesCap = this.bytes.length;
        this.byteLen = 0;
        break;
      case 'list':
        this.offsets = new Int32Array(n + 1);
        this.elements = 0;
        this.child!.discard();
        break;
    }
  }

  setNull(i: number): void {
    this.validity[i >> 3] &= ~(1 << (i & 7));
    this.nulls++;
    if (this.offsets) this.offsets[i + 1] = this.type.kind === 'list' ? this.elements : this.byteLen;
  }

  /** Variable-length value from a byte range (no copy of the source until here). */
  setBytes(i: number, src: Uint8Array, start: number, end: number): void {
    const len = end - start;
    this.ensure(len);
    // short values (most strings) byte by byte: a subarray per value would allocate an object per row
    if (len <= 64) { const dst = this.bytes; let o = this.byteLen; for (let k = start; k < end; k++) dst[o++] = src[k]; }
    else this.bytes.set(src.subarray(start, end), this.byteLen);
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
    let cap = Math.max(1024, this.bytes.length * 2);
    while (cap < this.byteLen + extra) cap *= 2;
    const nb = new Uint8Array(cap);
    nb.set(this.bytes.subarray(0, this.byteLen));
    this.bytes = nb;
    this.bytesCap = cap;
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
      case 'list': {
        // an array from a driver, or PostgreSQL's text form of one (a text-mode read)
        const items = typeof v === 'string' ? parsePgArray(v) : v;
        if (!Array.isArray(items)) throw new AppError('fatal', `sources: a list column got ${typeof v}, not an array`);
        for (const x of items.flat(Infinity)) this.child!.set(this.addElement(), x);
        this.endList(i);
        return;
      }
    }
  }

  finish(length: number): arrow.Data {
    if (this.stale) this.reset();
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
      case 'list':
        d = arrow.makeData({ ...base, valueOffsets: this.offsets.subarray(0, length + 1), child: this.child!.finish(this.elements) } as never);
        this.elements = 0;
        break;
    }
    this.stale = true;
    this.nulls = 0;
    return d;
  }
}

/** A whole batch: one builder per target field, plus constant columns. */
export function assembleBatch(schema: arrow.Schema, columns: arrow.Data[], length: number): arrow.RecordBatch {
  const struct = arrow.makeData({ type: new arrow.Struct(schema.fields), length, nullCount: 0, children: columns });
  return new arrow.RecordBatch(schema, struct);
}

/** A column holding one value (or null) on every row: the value is converted once and replicated. */
export function constantColumn(type: ColumnType, value: unknown, length: number): arrow.Data {
  const b = new ColumnBuilder(type, Math.max(1, length));
  b.prepare(0);
  if (length === 0 || value === null || value === undefined) {
    if (length > 0) { b.prepare(length - 1); for (let i = 0; i < length; i++) b.setNull(i); }
    return b.finish(length);
  }
  b.set(0, value);
  const one = b.finish(1);
  const arrowType = one.type;
  switch (type.kind) {
    case 'boolean': {
      const bits = new Uint8Array((length + 7) >> 3).fill((one.values as Uint8Array)[0] & 1 ? 0xff : 0);
      return arrow.makeData({ type: arrowType, length, nullCount: 0, data: bits } as never);
    }
    case 'string': case 'binary': {
      const v = (one.values as Uint8Array).subarray(0, (one.valueOffsets as Int32Array)[1]);
      const w = v.length;
      const bytes = new Uint8Array(w * length);
      if (w > 0) { bytes.set(v, 0); for (let filled = w; filled < bytes.length; filled *= 2) bytes.copyWithin(filled, 0, Math.min(filled, bytes.length - filled)); }
      const offsets = new Int32Array(length + 1);
      for (let i = 1; i <= length; i++) offsets[i] = i * w;
      return arrow.makeData({ type: arrowType, length, nullCount: 0, valueOffsets: offsets, data: bytes } as never);
    }
    case 'decimal': {
      const src = one.values as Uint32Array;
      const words = new Uint32Array(length * 4);
      words.set(src.subarray(0, 4), 0);
      for (let filled = 4; filled < words.length; filled *= 2) words.copyWithin(filled, 0, Math.min(filled, words.length - filled));
      return arrow.makeData({ type: arrowType, length, nullCount: 0, data: words } as never);
    }
    default: {
      const src = one.values as Int32Array | BigInt64Array | Float32Array | Float64Array;
      const data = new (src.constructor as { new (n: number): typeof src })(length);
      (data as unknown as { fill(v: unknown): void }).fill(src[0]);
      return arrow.makeData({ type: arrowType, length, nullCount: 0, data } as never);
    }
  }
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
