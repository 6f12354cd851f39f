import * as arrow from 'apache-arrow';
import { AppError } from '../errors';
import { decimalText } from './arrow-util';
import { textColumn, textValue, TextValueError } from './text-values';
import { icebergTypeOf, typeString } from './schema';

/** One Arrow value as a plain JSON-safe value: decimals as exact strings, times as ISO strings, bytes as hex. */
export function plainValue(type: arrow.DataType, v: unknown): unknown {
  if (v === null || v === undefined) return null;
  switch (type.typeId) {
    case arrow.Type.Decimal: {
      return decimalText(BigInt(String(v)), (type as arrow.Decimal).scale);
    }
    case arrow.Type.Int: return typeof v === 'bigint' ? (v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(v) : String(v)) : v;
    case arrow.Type.Timestamp: {
      const iso = new Date(Number(v)).toISOString();
      return (type as arrow.Timestamp).timezone ? iso : iso.replace('Z', '');
    }
    case arrow.Type.Date: return new Date(Number(v)).toISOString().slice(0, 10);
    case arrow.Type.Time: return String(v);
    case arrow.Type.Binary: case arrow.Type.FixedSizeBinary: return Buffer.from(v as Uint8Array).toString('hex');
    case arrow.Type.List: {
      // a list as a JSON array of its elements' plain values (previews, CSV export)
      const el = (type as arrow.List).children[0].type;
      return [...(v as arrow.Vector)].map((x) => plainValue(el, x));
    }
    default: return typeof v === 'bigint' ? String(v) : v;
  }
}

export function plainRow(batch: arrow.RecordBatch, i: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  batch.schema.fields.forEach((f, c) => { out[f.name] = cellValue(batch, c, i, plainValue); });
  return out;
}

/**
 * Column c's value at row i through `plain`, except a timestamp: arrow-js hands one over as
 * milliseconds, a float that cannot hold a microsecond (or nanosecond) value exactly, so it is
 * read from the column's integers (timestampIso).
 */
export function cellValue(batch: arrow.RecordBatch, c: number, i: number, plain: (type: arrow.DataType, v: unknown) => unknown): unknown {
  const type = batch.schema.fields[c].type;
  const v = batch.getChildAt(c)!.get(i);
  if (v === null || v === undefined || type.typeId !== arrow.Type.Timestamp) return plain(type, v);
  const d = batch.data.children[c];
  // arrow-js keeps `values` offset to the Data's first element (a slice's too): row i is values[i]
  return timestampIso(type as arrow.Timestamp, BigInt((d.values as BigInt64Array)[i]));
}

const PER_MS: Record<number, bigint> = { [arrow.TimeUnit.MICROSECOND]: 1000n, [arrow.TimeUnit.NANOSECOND]: 1_000_000n };

/**
 * A timestamp (`raw` in the type's unit) as ISO 8601 (with `Z` when the type has a zone): three
 * fraction digits, six or nine when the value has that much (a microsecond timestamp whose
 * microseconds are not zero), so no digit the lake holds is lost and whole milliseconds read as before.
 */
export function timestampIso(type: arrow.Timestamp, raw: bigint): string {
  const per = PER_MS[type.unit];
  let ms = type.unit === arrow.TimeUnit.SECOND ? raw * 1000n : raw;
  let sub = '';
  if (per) {
    ms = raw / per; let rem = raw % per;
    if (rem < 0n) { ms -= 1n; rem += per; } // floor: the fraction of a time before 1970 counts up from the millisecond below
    if (rem) sub = String(rem).padStart(per === 1000n ? 3 : 6, '0');
  }
  const iso = new Date(Number(ms)).toISOString().replace('Z', `${sub}Z`);
  return type.timezone ? iso : iso.replace('Z', '');
}

/**
 * One CSV field (RFC 4180): null and undefined empty, objects and arrays as
 * JSON, quoted when it holds a quote, comma or line break. The one CSV writer
 * of the product (lake exports, `models query`, DQ result files).
 */
export function csvCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  const s = typeof v === 'object' ? JSON.stringify(v) : String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** One CSV record (no line end): the fields through `csvCell`, joined by commas. */
export function csvLine(values: readonly unknown[]): string {
  return values.map(csvCell).join(',');
}

/** Minimal RFC 4180 CSV parser (quoted fields, doubled quotes, CRLF). */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = []; let row: string[] = []; let cell = ''; let q = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (q) {
      if (ch === '"') { if (text[i + 1] === '"') { cell += '"'; i++; } else q = false; } else cell += ch;
    } else if (ch === '"') q = true;
    else if (ch === ',') { row.push(cell); cell = ''; }
    else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      row.push(cell); cell = ''; rows.push(row); row = [];
    } else cell += ch;
  }
  if (cell !== '' || row.length) { row.push(cell); rows.push(row); }
  return rows.filter((r) => !(r.length === 1 && r[0] === ''));
}

/** CSV text → one Arrow batch; types from `schema` when given, else inferred (Int64, Float64, Bool, Utf8). */
export function csvToBatch(text: string, schema?: arrow.Schema): arrow.RecordBatch {
  const [header, ...rows] = parseCsv(text);
  if (!header) throw new AppError('validation', 'lake: empty CSV file');
  const fields = header.map((name, c) => {
    const known = schema?.fields.find((f) => f.name === name);
    if (known) return new arrow.Field(name, known.type, true);
    if (schema) throw new AppError('validation', `lake: CSV column ${name} is not in the table`, { field: name });
    const vals = rows.map((r) => r[c]).filter((v) => v !== '' && v !== undefined);
    const type = vals.length && vals.every((v) => /^-?\d{1,18}$/.test(v)) ? new arrow.Int64()
      : vals.length && vals.every((v) => /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(v)) ? new arrow.Float64()
        : vals.length && vals.every((v) => /^(true|false)$/i.test(v)) ? new arrow.Bool() : new arrow.Utf8();
    return new arrow.Field(name, type, true);
  });
  const children = fields.map((f, c) => textColumn(f.type, rows.map((r, i) => cell(f, r[c], i))));
  const s = new arrow.Schema(fields);
  return new arrow.RecordBatch(s, arrow.makeData({ type: new arrow.Struct(fields), length: rows.length, nullCount: 0, children }));
}

/** One CSV field as its column's value; a value the column's type cannot hold names its row (after the header) and column. */
function cell(f: arrow.Field, v: string | undefined, i: number): unknown {
  try {
    return textValue(f.type, v);
  } catch (e) {
    if (!(e instanceof TextValueError)) throw e;
    throw new AppError('validation', `lake: CSV row ${i + 1}, column ${f.name}: ${e.message} (the column is ${typeString(icebergTypeOf(f))})`, { field: f.name });
  }
}
