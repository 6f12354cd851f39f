import type * as arrow from 'apache-arrow';
import { ColumnBuilder, assembleBatch, constantColumn, trackedText } from './batch-builder';
import type { ColumnType, ReadStats, ReadTarget } from './types';
import { AppError } from '../errors';

/**
 * Decoder of `COPY … TO STDOUT (FORMAT binary)` straight into Arrow buffers.
 * Wire format (Postgres docs, "COPY — Binary Format"): an 11-byte signature,
 * int32 flags, int32 header-extension length; then per tuple an int16 field
 * count (-1 ends the data) and per field an int32 length (-1 = NULL) and the
 * value in the type's binary send format, big-endian.
 *
 * Each projected column arrives already in its wire type (the COPY query casts
 * where the source differs), so one decode per logical type suffices.
 */
export interface CopyColumn {
  /** Logical type the column is decoded as. */
  type: ColumnType;
  /** Index of the target field it fills, or -1 (tracked only). */
  targetIndex: number;
  /** Name under which its maximum is tracked, or null. */
  track: string | null;
}

/** 2000-01-01 − 1970-01-01 in µs (= 946_684_800_000_000) as 32-bit halves, to shift timestamps without BigInt. */
const PG_EPOCH_US_HI = 220_417;
const PG_EPOCH_US_LO = 993_517_568;
if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) throw new Error('sources: the binary COPY decoder assumes a little-endian host');
const PG_EPOCH_DAYS = 10_957;
const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
const TWO32 = 4294967296;

/** How `decodeTuple` decodes a column: the common fixed-width types inline, anything else through `decodeValue`. */
const OTHER = 0, INT4 = 1, INT8 = 2, DATE = 3, TIMESTAMP = 4, BOOL = 5, BYTES = 6, FLOAT8 = 7, NUMERIC = 8;
function codeOf(t: ColumnType): number {
  switch (t.kind) {
    case 'int': return INT4;
    case 'long': return INT8;
    case 'date': return DATE;
    case 'timestamp': case 'timestamptz': return TIMESTAMP;
    case 'boolean': return BOOL;
    case 'string': case 'binary': return BYTES;
    case 'double': return FLOAT8;
    case 'decimal': return NUMERIC;
    default: return OTHER;
  }
}

/** A float8's bytes, reversed into this (little-endian) host's order. */
const F64 = new Float64Array(1);
const F64_BYTES = new Uint8Array(F64.buffer);

/** A big-endian int32 at `p` (bytes past the end read as 0). */
function int32(buf: Uint8Array, p: number): number {
  return (buf[p] << 24) | (buf[p + 1] << 16) | (buf[p + 2] << 8) | buf[p + 3];
}

export class CopyDecoder {
  private readonly cols: CopyColumn[];
  private readonly builders: ColumnBuilder[];
  private readonly target: ReadTarget;
  private readonly batchSize: number;
  private readonly stats: ReadStats;
  private readonly maxCmp: (number | bigint | string | null)[];
  /** Each column's decoding (`codeOf`), so the per-value switch compares small integers. */
  private readonly codes: Uint8Array;
  /** Each decimal column's scale (0 for the others). */
  private readonly scales: Int32Array;
  private readonly precisions: Int32Array;
  private headerDone = false;
  private row = 0;
  done = false;

  constructor(cols: CopyColumn[], target: ReadTarget, batchSize: number, stats: ReadStats) {
    this.cols = cols;
    this.target = target;
    this.batchSize = batchSize;
    this.stats = stats;
    this.builders = cols.map((c) => new ColumnBuilder(c.type, batchSize));
    this.maxCmp = cols.map(() => null);
    this.codes = Uint8Array.from(cols, (c) => codeOf(c.type));
    this.scales = Int32Array.from(cols, (c) => (c.type.kind === 'decimal' ? c.type.scale : 0));
    this.precisions = Int32Array.from(cols, (c) => (c.type.kind === 'decimal' ? c.type.precision : 38));
  }

  /**
   * Feed one whole CopyData message, as node-postgres frames it. Postgres sends
   * one tuple per message (the first also carries the file header, the last is
   * the end marker), so there is nothing to carry over between calls and no
   * need to check a tuple is complete before decoding it. A tuple running past
   * its message is a corrupt stream (the buffer read throws).
   */
  pushMessage(buf: Buffer): arrow.RecordBatch[] {
    let off = 0;
    if (!this.headerDone) {
      if (buf.length < 19 || !buf.subarray(0, 11).equals(SIGNATURE)) throw new AppError('fatal', 'sources: not a binary COPY stream');
      off = 19 + buf.readInt32BE(15);
      this.headerDone = true;
    }
    const out: arrow.RecordBatch[] = [];
    const n = this.cols.length;
    while (off + 2 <= buf.length) {
      const fc = buf.readInt16BE(off);
      if (fc === -1) { this.done = true; break; }
      if (fc !== n) throw new AppError('fatal', `sources: COPY tuple has ${fc} fields, expected ${n}`);
      off = this.decodeTuple(buf, off + 2);
      if (off > buf.length) throw new AppError('fatal', 'sources: a COPY tuple runs past its message');
      if (this.row === this.batchSize) out.push(this.flush());
    }
    return out;
  }

  /**
   * Decode the fields of one tuple starting at `p` (after its field count) into the next row; returns the offset after it.
   * The common fixed-width types are decoded here, reading big-endian bytes by hand: a call per value
   * to Buffer's readers (argument checks, a switch on the type's name) cost more than the decoding.
   * Bytes past the message read as 0 rather than throwing: the caller refuses a tuple that ran past it.
   */
  private decodeTuple(buf: Buffer, p: number): number {
    const row = this.row;
    const builders = this.builders;
    const codes = this.codes;
    const n = builders.length;
    if (row === 0 || row >= builders[0].capacity) for (let j = 0; j < n; j++) builders[j].prepare(row);
    for (let j = 0; j < n; j++) {
      const len = (buf[p] << 24) | (buf[p + 1] << 16) | (buf[p + 2] << 8) | buf[p + 3];
      p += 4;
      const b = builders[j];
      if (len < 0) { b.setNull(row); continue; }
      switch (codes[j]) {
        case INT4: b.i32[row] = len === 2 ? ((buf[p] << 24) >> 16) | buf[p + 1] : int32(buf, p); break;
        case INT8: b.i64w[2 * row] = int32(buf, p + 4); b.i64w[2 * row + 1] = int32(buf, p); break;
        case DATE: b.i32[row] = int32(buf, p) + PG_EPOCH_DAYS; break;
        case TIMESTAMP: {
          // µs since 2000-01-01 → since 1970-01-01: a 64-bit add on 32-bit halves (carry from the low word)
          let lo = (int32(buf, p + 4) >>> 0) + PG_EPOCH_US_LO;
          let hi = int32(buf, p) + PG_EPOCH_US_HI;
          if (lo >= TWO32) { lo -= TWO32; hi++; }
          b.i64w[2 * row] = lo | 0; b.i64w[2 * row + 1] = hi | 0;
          break;
        }
        case BOOL: if (buf[p] !== 0) b.setBool(row, true); break;
        case BYTES: b.setBytes(row, buf, p, p + len); break;
        case FLOAT8: {
          const f = F64_BYTES;
          f[0] = buf[p + 7]; f[1] = buf[p + 6]; f[2] = buf[p + 5]; f[3] = buf[p + 4]; f[4] = buf[p + 3]; f[5] = buf[p + 2]; f[6] = buf[p + 1]; f[7] = buf[p];
          b.f64[row] = F64[0];
          break;
        }
        case NUMERIC: { const r = decodeNumeric(buf, p, this.scales[j], b.words, row, this.precisions[j]); if (r !== NUMERIC_OK) this.numericNotOk(r, j, row); break; }
        default: decodeValue(this.cols[j].type, b, buf, p, len, row);
      }
      p += len;
    }
    this.row++;
    this.stats.rows++;
    return p;
  }

  /** A numeric that is NaN/infinity (null) or would be rounded to the column's scale (refused, naming the column). */
  private numericNotOk(r: number, j: number, row: number): void {
    if (r === NUMERIC_NULL) { this.builders[j].setNull(row); return; }
    const c = this.cols[j];
    throw numericRefused(r, this.precisions[j], this.scales[j], c.targetIndex >= 0 ? this.target.fields[c.targetIndex].name : c.track);
  }

  /** Offer the batch's largest value of each tracked column (one BigInt per batch, not per row). */
  private track(len: number): void {
    for (let j = 0; j < this.cols.length; j++) {
      if (!this.cols[j].track) continue;
      const b = this.builders[j];
      const valid = (i: number) => b.nulls === 0 || (b.validity[i >> 3] & (1 << (i & 7))) !== 0;
      let best = -1;
      switch (this.cols[j].type.kind) {
        case 'int': case 'date': case 'float': case 'double': {
          const v = this.cols[j].type.kind === 'float' ? b.f32 : this.cols[j].type.kind === 'double' ? b.f64 : b.i32;
          for (let i = 0; i < len; i++) if (valid(i) && (best < 0 || v[i] > v[best])) best = i;
          break;
        }
        case 'long': case 'timestamp': case 'timestamptz': {
          const w = b.i64w;
          for (let i = 0; i < len; i++) {
            if (!valid(i)) continue;
            if (best < 0 || w[2 * i + 1] > w[2 * best + 1] || (w[2 * i + 1] === w[2 * best + 1] && w[2 * i] >>> 0 > w[2 * best] >>> 0)) best = i;
          }
          break;
        }
        default:
          // decimals and strings: rare as CDC columns; compared through their JS values
          for (let i = 0; i < len; i++) if (valid(i)) this.offer(j, b, i);
      }
      if (best >= 0) this.offer(j, b, best);
    }
  }

  private offer(j: number, b: ColumnBuilder, row: number): void {
    const t = this.cols[j].type;
    let v: number | bigint | string;
    switch (t.kind) {
      case 'int': case 'date': v = b.i32[row]; break;
      case 'long': case 'timestamp': case 'timestamptz': v = b.i64[row]; break;
      case 'float': v = b.f32[row]; break;
      case 'double': v = b.f64[row]; break;
      case 'decimal': {
        const o = row * 4;
        const w = b.words;
        v = BigInt.asIntN(128, (BigInt(w[o + 3]) << 96n) | (BigInt(w[o + 2]) << 64n) | (BigInt(w[o + 1]) << 32n) | BigInt(w[o]));
        break;
      }
      default: v = Buffer.from(b.bytes.subarray(b.offsets[row], b.offsets[row + 1])).toString('utf8');
    }
    const cur = this.maxCmp[j];
    if (cur === null || v > cur) this.maxCmp[j] = v;
  }

  /** Emit the rows collected so far as one batch (null when there are none). */
  flush(): arrow.RecordBatch {
    const len = this.row;
    this.track(len);
    const children: arrow.Data[] = new Array(this.target.fields.length);
    for (let j = 0; j < this.cols.length; j++) {
      const c = this.cols[j];
      if (c.targetIndex >= 0) children[c.targetIndex] = this.builders[j].finish(len);
      else this.builders[j].discard();
    }
    this.target.fields.forEach((f, i) => {
      if (children[i]) return;
      const k = this.target.constants[f.name];
      children[i] = constantColumn(f.type, k ? k.value : null, len);
    });
    this.row = 0;
    this.publishMax();
    return assembleBatch(this.target.schema, children, len);
  }

  /** Rows not yet emitted. */
  get buffered(): number { return this.row; }

  private publishMax(): void {
    this.cols.forEach((c, j) => {
      const v = this.maxCmp[j];
      if (!c.track || v === null) return;
      const prev = this.stats.max[c.track];
      if (!prev || v > prev.cmp) this.stats.max[c.track] = { cmp: v, text: trackedText(c.type, v) };
    });
  }
}

/** Decode one non-null value of logical type `t` (in its wire type's send format) into row `row` of `b`. */
function decodeValue(t: ColumnType, b: ColumnBuilder, buf: Buffer, p: number, len: number, row: number): void {
  switch (t.kind) {
    case 'int': b.i32[row] = len === 2 ? buf.readInt16BE(p) : buf.readInt32BE(p); break;
    case 'long': b.i64w[2 * row] = buf.readInt32BE(p + 4); b.i64w[2 * row + 1] = buf.readInt32BE(p); break;
    case 'float': b.f32[row] = buf.readFloatBE(p); break;
    case 'double': b.f64[row] = buf.readDoubleBE(p); break;
    case 'boolean': b.setBool(row, buf[p] !== 0); break;
    case 'date': b.i32[row] = buf.readInt32BE(p) + PG_EPOCH_DAYS; break;
    case 'timestamp': case 'timestamptz': {
      // µs since 2000-01-01 → since 1970-01-01: a 64-bit add on 32-bit halves (carry from the low word)
      let lo = buf.readUInt32BE(p + 4) + PG_EPOCH_US_LO;
      let hi = buf.readInt32BE(p) + PG_EPOCH_US_HI;
      if (lo >= TWO32) { lo -= TWO32; hi++; }
      b.i64w[2 * row] = lo | 0; b.i64w[2 * row + 1] = hi | 0;
      break;
    }
    case 'string': case 'binary': b.setBytes(row, buf, p, p + len); break;
    case 'decimal': { const r = decodeNumeric(buf, p, t.scale, b.words, row, t.precision); if (r === NUMERIC_NULL) b.setNull(row); else if (r !== NUMERIC_OK) throw numericRefused(r, t.precision, t.scale, null); break; }
    case 'list': decodeArray(t.element, b, buf, p, row); break;
  }
}

/**
 * Postgres array send format (array_send): int32 ndim, int32 has-nulls flag,
 * int32 element OID, ndim × (int32 size, int32 lower bound), then each element
 * as int32 length (-1 = NULL) and its value. A multi-dimensional array's
 * elements arrive in row-major order: they become one flat list.
 */
function decodeArray(element: ColumnType, b: ColumnBuilder, buf: Buffer, p: number, row: number): void {
  const ndim = buf.readInt32BE(p);
  let n = ndim > 0 ? 1 : 0;
  for (let d = 0; d < ndim; d++) n *= buf.readInt32BE(p + 12 + 8 * d);
  let q = p + 12 + 8 * ndim;
  const child = b.child!;
  for (let k = 0; k < n; k++) {
    const len = buf.readInt32BE(q);
    q += 4;
    const at = b.addElement();
    if (len < 0) { child.setNull(at); continue; }
    decodeValue(element, child, buf, q, len, at);
    q += len;
  }
  b.endList(row);
}

/**
 * A value with more fraction digits than its lake column's scale (loading it would round it) or
 * more digits than its precision: the unit fails, naming the column.
 */
function numericRefused(r: number, precision: number, scale: number, column: string | null): AppError {
  if (r === NUMERIC_OVERFLOW) {
    return new AppError('validation', `sources: a numeric value${column ? ` of column ${column}` : ''} does not fit the lake column's decimal(${precision},${scale})`, column ? { field: column } : undefined);
  }
  return new AppError('validation', `sources: a numeric value${column ? ` of column ${column}` : ''} has more fraction digits than the lake column's scale ${scale}, and would be rounded: `
    + 'an ETL load widens an unconstrained numeric column to the scale the rows it reads need (a row that no INCREMENTAL will read again: an INITIAL of its branch)', column ? { field: column } : undefined);
}

/** decodeNumeric's outcomes. */
export const NUMERIC_OK = 1, NUMERIC_NULL = 0, NUMERIC_INEXACT = -1, NUMERIC_OVERFLOW = -2;

/** 10^p as BigInt, p = 0…38 (a decimal's bound). */
const BIG_POW10 = Array.from({ length: 39 }, (_, i) => 10n ** BigInt(i));

/** 10^0 … 10^15, exact as doubles. */
const POW10 = Array.from({ length: 16 }, (_, i) => 10 ** i);

/**
 * Postgres numeric send format: int16 ndigits, int16 weight, uint16 sign,
 * int16 dscale, then ndigits base-10000 digits. Writes the value scaled to
 * `scale` as a 128-bit integer: NUMERIC_OK; NUMERIC_NULL for NaN/infinity;
 * NUMERIC_INEXACT for a value with non-zero digits beyond `scale` (it would
 * be rounded), NUMERIC_OVERFLOW for one of more than `precision` digits at
 * that scale: the caller refuses those, naming the column.
 */
export function decodeNumeric(buf: Buffer, p: number, scale: number, words: Uint32Array, row: number, precision = 38): number {
  // int16/uint16 fields read by hand (see decodeTuple); a numeric running past its message is refused by the caller
  const nd = ((buf[p] << 24) >> 16) | buf[p + 1];
  const weight = ((buf[p + 2] << 24) >> 16) | buf[p + 3];
  const sign = (buf[p + 4] << 8) | buf[p + 5];
  if (sign === 0xc000 || sign === 0xd000 || sign === 0xf000) return NUMERIC_NULL;
  let accN = 0;
  let big: bigint | null = null;
  let q = p + 8;
  for (let k = 0; k < nd; k++, q += 2) {
    const d = (buf[q] << 8) | buf[q + 1]; // a base-10000 digit: 0–9999
    if (big === null) {
      accN = accN * 10000 + d;
      if (accN > 900_000_000_000) big = BigInt(accN);
    } else big = big * 10000n + BigInt(d);
  }
  // acc holds value × 10^fracDigits
  const fracDigits = nd === 0 ? 0 : 4 * (nd - 1 - weight);
  const shift = scale - fracDigits;
  const o = row * 4;
  if (big === null && shift >= -15 && shift <= 15) {
    // Number arithmetic while exact (|v| <= 2^53): the common case, no BigInt allocated
    let v: number;
    if (shift >= 0) v = accN * POW10[shift];
    else {
      // more fraction digits than the scale (base-10000 groups are zero-padded): round half away from zero
      const div = POW10[-shift];
      v = Math.floor(accN / div);
      if (accN - v * div !== 0) return NUMERIC_INEXACT;
    }
    if (v <= Number.MAX_SAFE_INTEGER) {
      if (precision < 16 && v >= POW10[precision]) return NUMERIC_OVERFLOW;
      const lo = v % TWO32;
      const hi = Math.floor(v / TWO32);
      if (sign === 0x4000 && v !== 0) {
        words[o] = (TWO32 - lo) % TWO32;
        words[o + 1] = (TWO32 - hi - (lo > 0 ? 1 : 0)) % TWO32;
        words[o + 2] = 0xffffffff;
        words[o + 3] = 0xffffffff;
      } else {
        words[o] = lo; words[o + 1] = hi; words[o + 2] = 0; words[o + 3] = 0;
      }
      return NUMERIC_OK;
    }
  }
  let acc = big ?? BigInt(accN);
  if (shift >= 0) acc *= 10n ** BigInt(shift);
  else {
    const div = 10n ** BigInt(-shift);
    if (acc % div !== 0n) return NUMERIC_INEXACT;
    acc /= div;
  }
  if (acc >= BIG_POW10[Math.min(38, precision)]) return NUMERIC_OVERFLOW;
  if (sign === 0x4000) acc = -acc;
  const u = BigInt.asUintN(128, acc);
  words[o] = Number(u & 0xffffffffn);
  words[o + 1] = Number((u >> 32n) & 0xffffffffn);
  words[o + 2] = Number((u >> 64n) & 0xffffffffn);
  words[o + 3] = Number((u >> 96n) & 0xffffffffn);
  return NUMERIC_OK;
}
