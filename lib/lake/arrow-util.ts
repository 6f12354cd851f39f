/**
 * Low-level Arrow helpers the lake needs and apache-arrow JS lacks: take rows
 * by index, cast a column to the table's type, all-null columns. They work on
 * buffers directly (no per-value boxing) so large batches stay cheap.
 *
 * Arrow JS slicing convention (Data._sliceBuffers): fixed-width value buffers
 * and offset buffers are pre-sliced (index 0 = first row) while the validity
 * bitmap and Bool value bits are addressed with `data.offset`.
 */
import { AppError } from '../errors';
import * as arrow from 'apache-arrow';

export type AnyData = arrow.Data<arrow.DataType>;

export function isValidAt(d: AnyData, i: number): boolean {
  const bm = d.nullBitmap;
  if (!bm || bm.length === 0) return true;
  const j = d.offset + i;
  return ((bm[j >> 3] >> (j & 7)) & 1) === 1;
}

function hasNulls(d: AnyData): boolean {
  return !!d.nullBitmap && d.nullBitmap.length > 0 && d.nullCount > 0;
}

/** Validity bitmap for `idx` rows of `d` (undefined when none is null). */
function takeValidity(d: AnyData, idx: ArrayLike<number>): { nullBitmap?: Uint8Array; nullCount: number } {
  if (!hasNulls(d)) return { nullCount: 0 };
  const n = idx.length;
  const bm = new Uint8Array(((n + 63) & ~63) >> 3);
  let nulls = 0;
  for (let k = 0; k < n; k++) {
    if (isValidAt(d, idx[k])) bm[k >> 3] |= 1 << (k & 7);
    else nulls++;
  }
  return { nullBitmap: bm, nullCount: nulls };
}

/** Bytes up to which `takeData` copies a run of string or binary values byte by byte (no subarray). */
const SHORT_RUN = 32;

/** Rows `idx` (in that order) of one column's data. */
export function takeData(d: AnyData, idx: ArrayLike<number>): AnyData {
  const n = idx.length;
  const { nullBitmap, nullCount } = takeValidity(d, idx);
  const type = d.type;
  switch (type.typeId) {
    case arrow.Type.Bool: {
      const src = d.values as Uint8Array;
      const out = new Uint8Array(((n + 63) & ~63) >> 3);
      for (let k = 0; k < n; k++) {
        const j = d.offset + idx[k];
        if ((src[j >> 3] >> (j & 7)) & 1) out[k >> 3] |= 1 << (k & 7);
      }
      return arrow.makeData({ type: type as arrow.Bool, length: n, nullCount, nullBitmap, data: out });
    }
    case arrow.Type.Utf8: case arrow.Type.Binary: {
      const offs = d.valueOffsets as Int32Array;
      const vals = d.values as Uint8Array;
      const newOffs = new Int32Array(n + 1);
      let total = 0;
      for (let k = 0; k < n; k++) { const i = idx[k]; total += offs[i + 1] - offs[i]; newOffs[k + 1] = total; }
      const out = new Uint8Array(total);
      // rows taken in a run (i, i+1, …: a filter's survivors, a merge's incoming rows less a few)
      // are copied as one range — a subarray and a set per row cost ~0.5 µs, more than the bytes
      for (let k = 0; k < n;) {
        const i = idx[k];
        let r = k + 1;
        while (r < n && idx[r] === idx[r - 1] + 1) r++;
        const s = offs[i], e = offs[idx[r - 1] + 1];
        if (e - s <= SHORT_RUN) for (let b = s, o = newOffs[k]; b < e; b++, o++) out[o] = vals[b];
        else out.set(vals.subarray(s, e), newOffs[k]);
        k = r;
      }
      return arrow.makeData({ type: type as arrow.Utf8, length: n, nullCount, nullBitmap, valueOffsets: newOffs, data: out });
    }
    case arrow.Type.Null:
      return arrow.makeData({ type: type as arrow.Null, length: n });
    case arrow.Type.List: {
      // offsets index into the (unsliced) child: take the elements of each taken row, in order
      const offs = d.valueOffsets as Int32Array;
      const newOffs = new Int32Array(n + 1);
      let total = 0;
      for (let k = 0; k < n; k++) { const i = idx[k]; total += offs[i + 1] - offs[i]; newOffs[k + 1] = total; }
      const elems = new Int32Array(total);
      for (let k = 0, o = 0; k < n; k++) { const i = idx[k]; for (let e = offs[i]; e < offs[i + 1]; e++) elems[o++] = e; }
      return arrow.makeData({ type: type as arrow.List, length: n, nullCount, nullBitmap, valueOffsets: newOffs, child: takeData(d.children[0], elems) });
    }
    default: {
      const vals = d.values as unknown as { length: number; constructor: new (n: number) => { [k: number]: unknown }; subarray?: unknown };
      if (!vals || d.children.length > 0) throw new Error(`lake: cannot take rows of type ${String(type)}`);
      const stride = d.stride;
      const Ctor = vals.constructor as new (n: number) => Record<number, unknown>;
      const out = new Ctor(n * stride);
      const src = vals as unknown as Record<number, unknown>;
      const words = wordsPerRow(vals as unknown as ArrayBufferView, stride);
      if (words) takeWords(vals as unknown as ArrayBufferView, out as unknown as ArrayBufferView, words, idx);
      else if (stride === 1) for (let k = 0; k < n; k++) out[k] = src[idx[k]];
      else for (let k = 0; k < n; k++) { const s = idx[k] * stride, o = k * stride; for (let w = 0; w < stride; w++) out[o + w] = src[s + w]; }
      return arrow.makeData({ type: type as arrow.Int, length: n, nullCount, nullBitmap, data: out as unknown as Int32Array });
    }
  }
}

/**
 * 32-bit words per row when a fixed-width column can be taken word by word (its row is a whole
 * number of aligned words), else 0. Why: indexing a BigInt64Array (longs, timestamps) makes a
 * BigInt per element, and one generic loop over every typed-array kind is megamorphic — a take of
 * the rows a merge replaced spent more time there than in reading them.
 */
function wordsPerRow(vals: ArrayBufferView, stride: number): number {
  const bytes = (vals as unknown as { BYTES_PER_ELEMENT: number }).BYTES_PER_ELEMENT * stride;
  return bytes % 4 === 0 && vals.byteOffset % 4 === 0 ? bytes / 4 : 0;
}

function takeWords(vals: ArrayBufferView, out: ArrayBufferView, words: number, idx: ArrayLike<number>): void {
  const n = idx.length;
  const src = new Int32Array(vals.buffer, vals.byteOffset, vals.byteLength >> 2);
  const dst = new Int32Array(out.buffer, out.byteOffset, out.byteLength >> 2);
  if (words === 1) for (let k = 0; k < n; k++) dst[k] = src[idx[k]];
  else if (words === 2) for (let k = 0; k < n; k++) { const s = idx[k] * 2; dst[2 * k] = src[s]; dst[2 * k + 1] = src[s + 1]; }
  else for (let k = 0; k < n; k++) { const s = idx[k] * words, o = k * words; for (let w = 0; w < words; w++) dst[o + w] = src[s + w]; }
}

/** Rows `idx` of a whole batch. */
export function takeBatch(batch: arrow.RecordBatch, idx: ArrayLike<number>): arrow.RecordBatch {
  const children = batch.schema.fields.map((_, c) => takeData(batch.data.children[c], idx));
  return makeBatch(batch.schema, children, idx.length);
}

export function makeBatch(schema: arrow.Schema, children: AnyData[], length: number): arrow.RecordBatch {
  const struct = arrow.makeData({ type: new arrow.Struct(schema.fields), length, nullCount: 0, children });
  return new arrow.RecordBatch(schema, struct);
}

/** A column of `length` nulls of `type`. */
export function nullData(type: arrow.DataType, length: number): AnyData {
  const bm = new Uint8Array(((length + 63) & ~63) >> 3);
  switch (type.typeId) {
    case arrow.Type.Utf8: case arrow.Type.Binary:
      return arrow.makeData({ type: type as arrow.Utf8, length, nullCount: length, nullBitmap: bm, valueOffsets: new Int32Array(length + 1), data: new Uint8Array(0) });
    case arrow.Type.Bool:
      return arrow.makeData({ type: type as arrow.Bool, length, nullCount: length, nullBitmap: bm, data: new Uint8Array(bm.length) });
    case arrow.Type.List:
      return arrow.makeData({ type: type as arrow.List, length, nullCount: length, nullBitmap: bm, valueOffsets: new Int32Array(length + 1), child: nullData((type as arrow.List).children[0].type, 0) });
    default: {
      const T = (type as unknown as { ArrayType: new (n: number) => Int32Array }).ArrayType;
      const stride = strideOf(type);
      return arrow.makeData({ type: type as arrow.Int, length, nullCount: length, nullBitmap: bm, data: new T(length * stride) });
    }
  }
}

function strideOf(type: arrow.DataType): number {
  if (type.typeId === arrow.Type.Decimal) return (type as arrow.Decimal).bitWidth / 32;
  if (type.typeId === arrow.Type.FixedSizeBinary) return (type as arrow.FixedSizeBinary).byteWidth;
  if (type.typeId === arrow.Type.Interval) return 2;
  return 1;
}

const US_PER: Record<number, bigint> = {
  [arrow.TimeUnit.SECOND]: 1_000_000n, [arrow.TimeUnit.MILLISECOND]: 1000n, [arrow.TimeUnit.MICROSECOND]: 1n,
};

function retype(d: AnyData, type: arrow.DataType): AnyData {
  return new arrow.Data(type, d.offset, d.length, d.nullCount, d.buffers as never, d.children, d.dictionary) as AnyData;
}

function withValues(d: AnyData, type: arrow.DataType, values: ArrayBufferView): AnyData {
  // values are indexed from row 0 (as Arrow JS pre-slices value buffers); keep the bitmap and offset
  return new arrow.Data(type, d.offset, d.length, d.nullCount, [undefined, values, d.nullBitmap] as never) as AnyData;
}

/** An unscaled decimal value at `scale` as exact text (`-12.50`). */
export function decimalText(v: bigint, scale: number): string {
  const neg = v < 0n;
  const a = (neg ? -v : v).toString().padStart(scale + 1, '0');
  return (neg ? '-' : '') + (scale ? `${a.slice(0, -scale)}.${a.slice(-scale)}` : a);
}

/** Every valid value (unscaled, at `t`'s scale) within `t`'s precision, else a validation error naming the column and the value. */
function checkDigits(d: AnyData, vals: bigint[], t: arrow.Decimal, column: string): void {
  const limit = 10n ** BigInt(t.precision);
  for (let i = 0; i < vals.length; i++) {
    const v = vals[i];
    if ((v < limit && v > -limit) || !isValidAt(d, i)) continue;
    throw new AppError('validation', `lake: the value ${decimalText(v, t.scale)} of column ${column} does not fit ${String(t)} (more integer digits than its precision leaves)`, { field: column });
  }
}

function decimalToBigInts(d: AnyData): bigint[] {
  const w = d.values as Uint32Array;
  const stride = d.stride;
  const out: bigint[] = new Array(d.length);
  for (let i = 0; i < d.length; i++) {
    let v = 0n;
    for (let k = stride - 1; k >= 0; k--) v = (v << 32n) | BigInt(w[i * stride + k]);
    out[i] = BigInt.asIntN(stride * 32, v);
  }
  return out;
}

function bigIntsToDecimal(vals: bigint[]): Uint32Array {
  const out = new Uint32Array(vals.length * 4);
  for (let i = 0; i < vals.length; i++) {
    let v = BigInt.asUintN(128, vals[i]);
    for (let k = 0; k < 4; k++) { out[i * 4 + k] = Number(v & 0xffffffffn); v >>= 32n; }
  }
  return out;
}

/** Same type for the lake's purpose (ignores field-level details such as timezone spelling of UTC). */
export function sameType(a: arrow.DataType, b: arrow.DataType): boolean {
  // compareTypes ignores decimal precision/scale; the printed form includes them
  return arrow.util.compareTypes(a, b) && String(a) === String(b);
}

/**
 * Cast one column to the table's Arrow type. Only lossless casts: integer
 * widening, float widening, decimal precision/scale widening, integer→decimal,
 * date/time/timestamp unit changes to the microsecond storage unit.
 */
export function castData(d: AnyData, to: arrow.DataType, column: string): AnyData {
  const from = d.type;
  if (to.typeId === arrow.Type.List && from.typeId === arrow.Type.List) {
    // cast the elements; the result carries the table's list type (its element field id)
    const child = castData(d.children[0], (to as arrow.List).children[0].type, column);
    return new arrow.Data(to, d.offset, d.length, d.nullCount, d.buffers as never, [child]) as AnyData;
  }
  if (sameType(from, to)) return d;
  const fail = () => { throw new AppError('validation', `lake: cannot write ${String(from)} into column ${column} of type ${String(to)}`, { field: column }); };
  if (from.typeId === arrow.Type.Null) return nullData(to, d.length);
  switch (to.typeId) {
    case arrow.Type.Int: {
      const t = to as arrow.Int;
      if (from.typeId !== arrow.Type.Int) return fail();
      const f = from as arrow.Int;
      if (t.bitWidth === 32) {
        if (f.bitWidth > 32 || (f.bitWidth === 32 && !f.isSigned)) return fail();
        return withValues(d, to, Int32Array.from(d.values as Int16Array));
      }
      if (t.bitWidth === 64) {
        if (f.bitWidth === 64) return f.isSigned ? retype(d, to) : fail();
        const src = d.values as Int32Array;
        const out = new BigInt64Array(d.length);
        for (let i = 0; i < d.length; i++) out[i] = BigInt(src[i]);
        return withValues(d, to, out);
      }
      return fail();
    }
    case arrow.Type.Float: {
      const t = to as arrow.Float;
      if (from.typeId === arrow.Type.Float) {
        const f = from as arrow.Float;
        if (f.precision === arrow.Precision.HALF) return fail();
        if (t.precision === arrow.Precision.DOUBLE) return withValues(d, to, Float64Array.from(d.values as Float32Array));
        return fail();
      }
      if (from.typeId === arrow.Type.Int && t.precision === arrow.Precision.DOUBLE && (from as arrow.Int).bitWidth <= 32) {
        return withValues(d, to, Float64Array.from(d.values as Int32Array));
      }
      return fail();
    }
    case arrow.Type.Decimal: {
      const t = to as arrow.Decimal;
      if (from.typeId === arrow.Type.Decimal) {
        const f = from as arrow.Decimal;
        if (f.scale > t.scale) return fail();
        // fewer integer digits than the source type's (a scale raised within precision 38): each value is checked
        const narrower = f.precision - f.scale > t.precision - t.scale;
        if (!narrower && f.scale === t.scale && f.bitWidth === t.bitWidth) return retype(d, to);
        const mul = 10n ** BigInt(t.scale - f.scale);
        const vals = decimalToBigInts(d).map((v) => v * mul);
        if (narrower) checkDigits(d, vals, t, column);
        return withValues(d, to, bigIntsToDecimal(vals));
      }
      if (from.typeId === arrow.Type.Int) {
        const mul = 10n ** BigInt(t.scale);
        const src = d.values as unknown as ArrayLike<number | bigint>;
        const vals: bigint[] = new Array(d.length);
        for (let i = 0; i < d.length; i++) vals[i] = BigInt(src[i]) * mul;
        if ((from as arrow.Int).bitWidth > 32 ? t.precision - t.scale < 19 : t.precision - t.scale < 10) checkDigits(d, vals, t, column);
        return withValues(d, to, bigIntsToDecimal(vals));
      }
      return fail();
    }
    case arrow.Type.Date: {
      if (from.typeId !== arrow.Type.Date) return fail();
      const src = d.values as unknown as ArrayLike<number | bigint>;
      const out = new Int32Array(d.length);
      for (let i = 0; i < d.length; i++) out[i] = Math.floor(Number(src[i]) / 86_400_000);
      return withValues(d, to, out);
    }
    case arrow.Type.Timestamp: case arrow.Type.Time: {
      if (from.typeId !== to.typeId) return fail();
      const fu = (from as arrow.Timestamp).unit, tu = (to as arrow.Timestamp).unit;
      if (to.typeId === arrow.Type.Timestamp && !!(from as arrow.Timestamp).timezone !== !!(to as arrow.Timestamp).timezone) return fail();
      if (fu === tu) return retype(d, to);
      const src = d.values as unknown as ArrayLike<number | bigint>;
      const out = new BigInt64Array(d.length);
      if (fu === arrow.TimeUnit.NANOSECOND) for (let i = 0; i < d.length; i++) out[i] = BigInt(src[i]) / 1000n;
      else { const m = US_PER[fu]; for (let i = 0; i < d.length; i++) out[i] = BigInt(src[i]) * m; }
      return withValues(d, to, out);
    }
    case arrow.Type.Utf8: case arrow.Type.Binary:
      if (from.typeId === to.typeId) return retype(d, to);
      if ((from.typeId === arrow.Type.Utf8 || from.typeId === arrow.Type.Binary)) return retype(d, to);
      return fail();
    case arrow.Type.FixedSizeBinary:
      if (from.typeId === arrow.Type.FixedSizeBinary && (from as arrow.FixedSizeBinary).byteWidth === (to as arrow.FixedSizeBinary).byteWidth) return retype(d, to);
      return fail();
    case arrow.Type.Bool:
      return from.typeId === arrow.Type.Bool ? retype(d, to) : fail();
    default:
      return fail();
  }
}

/**
 * Conform a batch to the table's Arrow schema: columns by name, in table order,
 * cast to the table's types, missing optional columns filled with nulls.
 */
export function conformBatch(batch: arrow.RecordBatch, target: arrow.Schema, table = ''): arrow.RecordBatch {
  const byName = new Map<string, number>();
  batch.schema.fields.forEach((f, i) => byName.set(f.name, i));
  for (const f of batch.schema.fields) {
    if (!target.fields.some((t) => t.name === f.name)) throw new AppError('validation', `lake: column ${f.name} is not in the schema of ${table} (evolve the schema first)`, { field: f.name });
  }
  const children = target.fields.map((tf) => {
    const i = byName.get(tf.name);
    if (i === undefined) {
      if (!tf.nullable) throw new AppError('validation', `lake: required column ${tf.name} of ${table} is missing from the batch`, { field: tf.name });
      return nullData(tf.type, batch.numRows);
    }
    const d = batch.data.children[i];
    if (!tf.nullable && d.nullCount > 0) throw new AppError('validation', `lake: required column ${tf.name} of ${table} has ${d.nullCount} null values`, { field: tf.name });
    return castData(d, tf.type, tf.name);
  });
  return makeBatch(target, children, batch.numRows);
}

/** Concatenate batches of one schema into one batch (copies). */
export function concatBatches(schema: arrow.Schema, batches: arrow.RecordBatch[]): arrow.RecordBatch {
  if (batches.length === 1) return batches[0];
  const t = new arrow.Table(schema, batches);
  const total = t.numRows;
  // take() over a virtual index per source batch keeps this buffer-level
  const children = schema.fields.map((_, c) => {
    const parts = batches.map((b) => b.data.children[c]);
    return concatData(parts, total);
  });
  return makeBatch(schema, children, total);
}

/** Concatenate one column's parts into one Data (copies). */
export function concatData(parts: AnyData[], total: number): AnyData {
  if (parts.length === 0) throw new Error('lake: concat of nothing');
  const type = parts[0].type;
  const anyNull = parts.some(hasNulls);
  let nullBitmap: Uint8Array | undefined; let nullCount = 0;
  if (anyNull) {
    nullBitmap = new Uint8Array(((total + 63) & ~63) >> 3);
    let o = 0;
    for (const p of parts) {
      for (let i = 0; i < p.length; i++, o++) {
        if (isValidAt(p, i)) nullBitmap[o >> 3] |= 1 << (o & 7); else nullCount++;
      }
    }
  }
  switch (type.typeId) {
    case arrow.Type.Bool: {
      const out = new Uint8Array(((total + 63) & ~63) >> 3);
      let o = 0;
      for (const p of parts) {
        const src = p.values as Uint8Array;
        for (let i = 0; i < p.length; i++, o++) { const j = p.offset + i; if ((src[j >> 3] >> (j & 7)) & 1) out[o >> 3] |= 1 << (o & 7); }
      }
      return arrow.makeData({ type: type as arrow.Bool, length: total, nullCount, nullBitmap, data: out });
    }
    case arrow.Type.Utf8: case arrow.Type.Binary: {
      let bytes = 0;
      for (const p of parts) { const off = p.valueOffsets as Int32Array; bytes += off[p.length] - off[0]; }
      const vals = new Uint8Array(bytes);
      const offs = new Int32Array(total + 1);
      let o = 0, b = 0;
      for (const p of parts) {
        const off = p.valueOffsets as Int32Array;
        const base = off[0];
        vals.set((p.values as Uint8Array).subarray(base, off[p.length]), b);
        for (let i = 1; i <= p.length; i++) offs[o + i] = b + off[i] - base;
        o += p.length; b += off[p.length] - base;
      }
      return arrow.makeData({ type: type as arrow.Utf8, length: total, nullCount, nullBitmap, valueOffsets: offs, data: vals });
    }
    case arrow.Type.List: {
      const offs = new Int32Array(total + 1);
      const kids: AnyData[] = [];
      let o = 0, e = 0;
      for (const p of parts) {
        const off = p.valueOffsets as Int32Array;
        const base = off[0], n = off[p.length] - base;
        kids.push(takeData(p.children[0], Int32Array.from({ length: n }, (_, k) => base + k)));
        for (let i = 1; i <= p.length; i++) offs[o + i] = e + off[i] - base;
        o += p.length; e += n;
      }
      return arrow.makeData({ type: type as arrow.List, length: total, nullCount, nullBitmap, valueOffsets: offs, child: kids.length ? concatData(kids, e) : nullData((type as arrow.List).children[0].type, 0) });
    }
    default: {
      const stride = parts[0].stride;
      const Ctor = (parts[0].values as unknown as { constructor: new (n: number) => Int32Array }).constructor;
      const out = new Ctor(total * stride);
      let o = 0;
      for (const p of parts) { out.set((p.values as Int32Array).subarray(0, p.length * stride), o); o += p.length * stride; }
      return arrow.makeData({ type: type as arrow.Int, length: total, nullCount, nullBitmap, data: out });
    }
  }
}

/** Rough in-memory size of a batch, for buffering decisions. */
export function batchBytes(b: arrow.RecordBatch): number {
  let n = 0;
  const add = (c: AnyData) => {
    n += (c.values?.byteLength ?? 0) + (c.valueOffsets?.byteLength ?? 0);
    for (const k of c.children) add(k); // a list's elements
  };
  for (const c of b.data.children) add(c);
  return n;
}

/** A JS value of row `i` of a column, for keys and filters: numbers, bigints, strings, or hex for bytes. */
export function valueAt(d: AnyData, i: number): unknown {
  if (!isValidAt(d, i)) return null;
  switch (d.type.typeId) {
    case arrow.Type.Int: case arrow.Type.Float: case arrow.Type.Date:
      if (d.type.typeId === arrow.Type.Date && (d.type as arrow.DateDay).unit === arrow.DateUnit.DAY) return (d.values as Int32Array)[i];
      return (d.values as unknown as ArrayLike<number | bigint>)[i];
    case arrow.Type.Timestamp: case arrow.Type.Time:
      return (d.values as unknown as ArrayLike<number | bigint>)[i];
    case arrow.Type.Utf8: {
      const off = d.valueOffsets as Int32Array;
      return textDecoder.decode((d.values as Uint8Array).subarray(off[i], off[i + 1]));
    }
    case arrow.Type.Decimal: {
      const w = d.values as Uint32Array; const s = d.stride;
      let v = 0n;
      for (let k = s - 1; k >= 0; k--) v = (v << 32n) | BigInt(w[i * s + k]);
      return BigInt.asIntN(s * 32, v);
    }
    case arrow.Type.Bool: { const j = d.offset + i; return (((d.values as Uint8Array)[j >> 3] >> (j & 7)) & 1) === 1; }
    default: {
      const v = arrow.makeVector(d).get(i);
      if (v instanceof Uint8Array) return Buffer.from(v).toString('hex');
      return v;
    }
  }
}

const textDecoder = new TextDecoder();
