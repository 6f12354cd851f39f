import * as arrow from 'apache-arrow';
import type { RowBytes } from './md5';
import { canonicalDouble, canonicalScaled, canonicalValue, epochSecondsFormatter, fractionText, type CanonKind } from './canonical';

/**
 * Canonical text of Arrow column values — the lake's (and staged Parquet's)
 * side of `canonical.ts`, reading the column buffers directly in the decode
 * loop instead of materialising JavaScript values.
 */

/** The canonical kind of an Arrow type. */
export function arrowKind(type: arrow.DataType): CanonKind {
  switch (type.typeId) {
    case arrow.Type.Int: return 'integer';
    case arrow.Type.Decimal: return 'decimal';
    case arrow.Type.Float: return 'float';
    case arrow.Type.Bool: return 'boolean';
    case arrow.Type.Binary: case arrow.Type.LargeBinary: case arrow.Type.FixedSizeBinary: return 'binary';
    case arrow.Type.Timestamp: return 'timestamp';
    case arrow.Type.Date: return 'date';
    default: return 'text';
  }
}

/** Reads one value of a column's Data as canonical text (null for NULL). */
export type CellRenderer = (data: arrow.Data, i: number) => string | null;

function isNull(data: arrow.Data, i: number): boolean {
  const bm = data.nullBitmap;
  if (!bm || bm.length === 0 || data.nullCount === 0) return false;
  const j = data.offset + i;
  return (bm[j >> 3] & (1 << (j & 7))) === 0;
}

const TWO32 = 4294967296;

/** Unscaled integer of a decimal cell (little-endian two's complement words). */
function decimalUnscaled(words: Uint32Array, base: number, stride: number): number | bigint {
  const w0 = words[base], w1 = words[base + 1];
  if (stride === 1) return w0 | 0;
  let hiAllZero = true, hiAllOnes = true;
  for (let k = 2; k < stride; k++) {
    const w = words[base + k];
    if (w !== 0) hiAllZero = false;
    if (w !== 0xffffffff) hiAllOnes = false;
  }
  if (hiAllZero && w1 < 0x200000) return w1 * TWO32 + w0;
  if (hiAllOnes && w1 >= 0xffe00000) return (w1 | 0) * TWO32 + w0;
  let v = 0n;
  for (let k = stride - 1; k >= 0; k--) v = (v << 32n) | BigInt(words[base + k]);
  return BigInt.asIntN(stride * 32, v);
}

const UNIT = ['second', 'milli', 'micro', 'nano'] as const;
const UNIT_DIV = [1, 1e3, 1e6, 1e9];

/** Epoch seconds (UTC wall clock) of a timestamp/date cell; used by window filters too. */
export function epochSecondsReader(type: arrow.DataType): ((data: arrow.Data, i: number) => number) | null {
  if (type.typeId === arrow.Type.Timestamp) {
    const div = UNIT_DIV[(type as arrow.Timestamp).unit];
    const bigDiv = BigInt(div);
    return (data, i) => {
      const vals = data.values as BigInt64Array | Int32Array;
      const j = i; // arrow-js pre-slices values: row i of a slice is values[i] (only validity bitmaps count from the offset)
      if (vals instanceof BigInt64Array) {
        const b = vals[j];
        if (div < 1e9 || (b < 9007199254740991n && b > -9007199254740991n)) return Math.floor(Number(b) / div);
        let q = b / bigDiv; if (b % bigDiv !== 0n && b < 0n) q -= 1n; return Number(q);
      }
      return Math.floor((vals[2 * j + 1] * TWO32 + (vals[2 * j] >>> 0)) / div);
    };
  }
  if (type.typeId === arrow.Type.Date) {
    if ((type as arrow.Date_).unit === arrow.DateUnit.DAY) return (data, i) => (data.values as Int32Array)[i] * 86400;
    return (data, i) => {
      const vals = data.values as BigInt64Array | Float64Array;
      const v = vals[i];
      return Math.floor(Number(v) / 1000);
    };
  }
  return null;
}

/**
 * A renderer for one column.
 * @param asFloat compare by double value (a float on either side)
 */
export function cellRenderer(type: arrow.DataType, asFloat: boolean): CellRenderer {
  switch (type.typeId) {
    case arrow.Type.Int: {
      const t = type as arrow.Int;
      if (asFloat) return (d, i) => isNull(d, i) ? null : canonicalDouble(Number((d.values as ArrayLike<number | bigint>)[i]));
      if (t.bitWidth === 64) return (d, i) => isNull(d, i) ? null : (d.values as BigInt64Array)[i].toString();
      return (d, i) => isNull(d, i) ? null : String((d.values as Int32Array)[i]);
    }
    case arrow.Type.Float:
      return (d, i) => isNull(d, i) ? null : canonicalDouble((d.values as Float64Array)[i]);
    case arrow.Type.Decimal: {
      const t = type as arrow.Decimal;
      const stride = (t.bitWidth ?? 128) / 32;
      return (d, i) => {
        if (isNull(d, i)) return null;
        const text = canonicalScaled(decimalUnscaled(d.values as Uint32Array, i * stride, stride), t.scale);
        // decimal → double is correctly rounded from the exact text, as numeric::float8 is
        return asFloat ? canonicalDouble(parseFloat(text)) : text;
      };
    }
    case arrow.Type.Bool:
      return (d, i) => {
        if (isNull(d, i)) return null;
        const j = d.offset + i;
        return ((d.values as Uint8Array)[j >> 3] & (1 << (j & 7))) !== 0 ? 'true' : 'false';
      };
    case arrow.Type.Utf8: case arrow.Type.LargeUtf8: {
      let cached: arrow.Data | null = null;
      let buf: Buffer = Buffer.alloc(0);
      return (d, i) => {
        if (isNull(d, i)) return null;
        if (cached !== d) { cached = d; const v = d.values as Uint8Array; buf = Buffer.from(v.buffer, v.byteOffset, v.byteLength); }
        const offs = d.valueOffsets as Int32Array | BigInt64Array;
        const j = i; // value offsets are pre-sliced too
        return buf.toString('utf8', Number(offs[j]), Number(offs[j + 1]));
      };
    }
    case arrow.Type.Binary: case arrow.Type.LargeBinary: {
      return (d, i) => {
        if (isNull(d, i)) return null;
        const offs = d.valueOffsets as Int32Array | BigInt64Array;
        const v = d.values as Uint8Array;
        const j = i; // value offsets are pre-sliced too
        return Buffer.from(v.buffer, v.byteOffset + Number(offs[j]), Number(offs[j + 1]) - Number(offs[j])).toString('hex');
      };
    }
    case arrow.Type.FixedSizeBinary: {
      const w = (type as arrow.FixedSizeBinary).byteWidth;
      return (d, i) => {
        if (isNull(d, i)) return null;
        const v = d.values as Uint8Array;
        return Buffer.from(v.buffer, v.byteOffset + i * w, w).toString('hex');
      };
    }
    case arrow.Type.Timestamp: {
      // whole seconds, then the fraction the column's unit holds (trailing zeros removed)
      const unit = (type as arrow.Timestamp).unit;
      const div = UNIT_DIV[unit], digits = [0, 3, 6, 9][unit];
      const bigDiv = BigInt(div);
      const sec = epochSecondsReader(type)!;
      const fmt = epochSecondsFormatter();
      return (d, i) => {
        if (isNull(d, i)) return null;
        const s = sec(d, i);
        if (div === 1) return fmt(s);
        const vals = d.values as BigInt64Array | Int32Array;
        const j = i;
        let sub: number;
        if (vals instanceof BigInt64Array) sub = div < 1e9 ? Number(vals[j]) - s * div : Number(vals[j] - BigInt(s) * bigDiv);
        else sub = vals[2 * j + 1] * TWO32 + (vals[2 * j] >>> 0) - s * div;
        return fmt(s) + fractionText(sub, digits);
      };
    }
    case arrow.Type.Date: {
      const sec = epochSecondsReader(type)!;
      const fmt = epochSecondsFormatter();
      return (d, i) => isNull(d, i) ? null : fmt(sec(d, i));
    }
    case arrow.Type.List: {
      // a list as PostgreSQL's jsonb text of the array (`["a", null, "b"]`, `[1, null]`): what pg-sql.ts renders
      const el = (type as arrow.List).children[0].type;
      const item = jsonbElement(el);
      return (d, i) => {
        if (isNull(d, i)) return null;
        const offs = d.valueOffsets as Int32Array;
        const child = d.children[0];
        const parts: string[] = [];
        for (let e = offs[i]; e < offs[i + 1]; e++) parts.push(isNull(child, e) ? 'null' : item(child, e));
        return `[${parts.join(', ')}]`;
      };
    }
    default: {
      // rare types (time, interval, nested): through the generic path
      return (d, i) => {
        if (isNull(d, i)) return null;
        const v = arrow.makeVector(d).get(i);
        return canonicalValue(v, 'text');
      };
    }
  }
}

export { UNIT };

/** One non-null list element as PostgreSQL's `to_jsonb` writes it. */
function jsonbElement(type: arrow.DataType): (d: arrow.Data, i: number) => string {
  switch (type.typeId) {
    case arrow.Type.Utf8: case arrow.Type.LargeUtf8: {
      const text = cellRenderer(type, false);
      return (d, i) => JSON.stringify(text(d, i));
    }
    case arrow.Type.Binary: {
      const hex = cellRenderer(type, false);
      return (d, i) => JSON.stringify(`\\x${hex(d, i)}`);
    }
    case arrow.Type.Decimal: {
      // jsonb keeps a numeric's scale (1.50)
      const t = type as arrow.Decimal;
      const stride = (t.bitWidth ?? 128) / 32;
      return (d, i) => {
        const u = BigInt(decimalUnscaled(d.values as Uint32Array, i * stride, stride));
        const neg = u < 0n; const s = (neg ? -u : u).toString().padStart(t.scale + 1, '0');
        return (neg ? '-' : '') + (t.scale ? `${s.slice(0, -t.scale)}.${s.slice(-t.scale)}` : s);
      };
    }
    case arrow.Type.Timestamp: case arrow.Type.Date: {
      const zoned = type.typeId === arrow.Type.Timestamp && !!(type as arrow.Timestamp).timezone;
      return (d, i) => {
        const v = arrow.makeVector(d).get(i) as number;
        const iso = new Date(Number(v)).toISOString();
        if (type.typeId === arrow.Type.Date) return JSON.stringify(iso.slice(0, 10));
        const us = Number(BigInt((d.values as BigInt64Array)[i]) % 1_000_000n + 1_000_000n) % 1_000_000;
        const frac = us ? `.${String(us).padStart(6, '0').replace(/0+$/, '')}` : '';
        return JSON.stringify(`${iso.slice(0, 19)}${frac}${zoned ? '+00:00' : ''}`);
      };
    }
    default: {
      const r = cellRenderer(type, false);
      return (d, i) => r(d, i) ?? 'null';
    }
  }
}

/** Writes one cell's canonical UTF-8 bytes, or the NULL marker, into a row buffer. */
export type CellWriter = (data: arrow.Data, i: number, out: RowBytes) => void;

/**
 * The byte form of `cellRenderer` for the digest loop: strings are copied from
 * the Arrow buffer as they are (already UTF-8), everything else is rendered
 * and written; the bytes equal the UTF-8 of the renderer's text.
 */
export function cellWriter(type: arrow.DataType, asFloat: boolean): CellWriter {
  if (type.typeId === arrow.Type.Utf8 || type.typeId === arrow.Type.LargeUtf8) {
    return (d, i, out) => {
      if (isNull(d, i)) { out.byte(NULL_BYTE); return; }
      const offs = d.valueOffsets as Int32Array | BigInt64Array;
      const j = i; // value offsets are pre-sliced
      out.bytes(d.values as Uint8Array, Number(offs[j]), Number(offs[j + 1]));
    };
  }
  const render = cellRenderer(type, asFloat);
  return (d, i, out) => {
    const s = render(d, i);
    if (s === null) out.byte(NULL_BYTE); else out.text(s);
  };
}

const NULL_BYTE = 0x1e;
