/**
 * Arrow ↔ Iceberg type mapping (spec: "Schemas and Data Types", "Parquet" appendix).
 *
 * | Arrow (input)                                   | Iceberg          | Arrow (scan output)            |
 * | ----------------------------------------------- | ---------------- | ------------------------------ |
 * | Bool                                            | boolean          | Bool                           |
 * | Int8, Int16, Int32, Uint8, Uint16               | int              | Int32                          |
 * | Int64, Uint32                                   | long             | Int64 (bigint)                 |
 * | Float16, Float32                                | float            | Float32                        |
 * | Float64                                         | double           | Float64                        |
 * | Decimal(P,S) (P ≤ 38)                           | decimal(P,S)     | Decimal(S,P,128)               |
 * | DateDay, DateMillisecond                        | date             | DateDay                        |
 * | Time* (any unit)                                | time             | TimeMicrosecond                |
 * | Timestamp* without timezone (any unit)          | timestamp        | TimestampMicrosecond           |
 * | Timestamp* with a timezone (any unit)           | timestamptz      | TimestampMicrosecond('UTC')    |
 * | Utf8, LargeUtf8                                 | string           | Utf8                           |
 * | Binary, LargeBinary                             | binary           | Binary                         |
 * | FixedSizeBinary(16) + metadata `ARROW:extension:name=arrow.uuid` | uuid | FixedSizeBinary(16)     |
 * | FixedSizeBinary(L)                              | fixed[L]         | FixedSizeBinary(L)             |
 * | List(primitive)                                 | list (element-id)| List (element with its id)     |
 *
 * Arrow nullable ⇔ Iceberg optional. Every Arrow field the lake writes or
 * returns carries `PARQUET:field_id` metadata (the Iceberg field id). Timestamps
 * and times are stored in microseconds, as the spec requires of Parquet files.
 * Anything else (lists of lists, structs, maps, intervals, dictionaries…) is
 * refused with an error naming the column.
 */
import { AppError } from '../errors';
import * as arrow from 'apache-arrow';
import type { IcebergField, IcebergListType, IcebergSchema, IcebergType } from './types';

export const FIELD_ID = 'PARQUET:field_id';

export function isListType(t: IcebergType): t is IcebergListType {
  return typeof t === 'object' && t !== null && t.type === 'list';
}

/** The printed form of a type (`list<string>` for a list): messages, comparisons. */
export function typeString(t: IcebergType): string {
  return isListType(t) ? `list<${t.element}>` : t;
}

/** A column's primitive type; a list column cannot be filtered, keyed or partitioned on, and says so. */
export function primitiveOf(f: IcebergField, role: string): string {
  if (isListType(f.type)) throw new AppError('validation', `lake: column ${f.name} is a list: it cannot be used as ${role}`, { field: f.name });
  return f.type;
}

/** Field id → primitive type of the top-level primitive columns (list columns have no bounds or partition role). */
export function primitiveTypes(schema: IcebergSchema): Map<number, string> {
  const out = new Map<number, string>();
  for (const f of schema.fields) if (!isListType(f.type)) out.set(f.id, f.type);
  return out;
}

/** The highest field id a schema uses, list element ids included (`last-column-id`). */
export function maxFieldId(schema: IcebergSchema): number {
  return Math.max(0, ...schema.fields.map((f) => (isListType(f.type) ? Math.max(f.id, f.type['element-id']) : f.id)));
}

/**
 * Iceberg type of an Arrow type; throws naming the column when unsupported.
 * A List of a primitive is a list whose element id is the child field's
 * `PARQUET:field_id` (0 without one: a new column's caller assigns it).
 */
export function icebergTypeOf(field: arrow.Field): IcebergType {
  const t = field.type as arrow.DataType;
  if (t.typeId === arrow.Type.List) {
    const child = (t as arrow.List).children[0];
    if (child.type.typeId === arrow.Type.List) throw new AppError('validation', `lake: unsupported type ${String(t)} for column ${field.name} (lists of lists)`, { field: field.name });
    const id = Number(child.metadata.get(FIELD_ID) ?? 0);
    return { type: 'list', 'element-id': id, element: icebergPrimitiveOf(child, field.name), 'element-required': !child.nullable };
  }
  return icebergPrimitiveOf(field, field.name);
}

function icebergPrimitiveOf(field: arrow.Field, column: string): string {
  const t = field.type as arrow.DataType;
  switch (t.typeId) {
    case arrow.Type.Bool: return 'boolean';
    case arrow.Type.Int: {
      const it = t as arrow.Int;
      if (it.bitWidth <= 16 || (it.bitWidth === 32 && it.isSigned)) return 'int';
      if (it.bitWidth === 64 && !it.isSigned) break;
      return 'long';
    }
    case arrow.Type.Float: return (t as arrow.Float).precision === arrow.Precision.DOUBLE ? 'double' : 'float';
    case arrow.Type.Decimal: {
      const d = t as arrow.Decimal;
      if (d.precision > 38) break;
      return `decimal(${d.precision}, ${d.scale})`;
    }
    case arrow.Type.Date: return 'date';
    case arrow.Type.Time: return 'time';
    case arrow.Type.Timestamp: return (t as arrow.Timestamp).timezone ? 'timestamptz' : 'timestamp';
    case arrow.Type.Utf8: case arrow.Type.LargeUtf8: return 'string';
    case arrow.Type.Binary: case arrow.Type.LargeBinary: return 'binary';
    case arrow.Type.FixedSizeBinary: {
      const w = (t as arrow.FixedSizeBinary).byteWidth;
      if (w === 16 && field.metadata.get('ARROW:extension:name') === 'arrow.uuid') return 'uuid';
      return `fixed[${w}]`;
    }
    default: break;
  }
  throw new AppError('validation', `lake: unsupported type ${String(t)} for column ${column}`, { field: column });
}

/** The Arrow type scans return for an Iceberg type (a list's element carries its field id). */
export function arrowTypeOf(type: IcebergType, column = '?'): arrow.DataType {
  if (isListType(type)) {
    const md = new Map<string, string>([[FIELD_ID, String(type['element-id'])]]);
    return new arrow.List(new arrow.Field('element', arrowTypeOf(type.element, column), !type['element-required'], md));
  }
  switch (type) {
    case 'boolean': return new arrow.Bool();
    case 'int': return new arrow.Int32();
    case 'long': return new arrow.Int64();
    case 'float': return new arrow.Float32();
    case 'double': return new arrow.Float64();
    case 'date': return new arrow.DateDay();
    case 'time': return new arrow.TimeMicrosecond();
    case 'timestamp': return new arrow.TimestampMicrosecond();
    case 'timestamptz': return new arrow.TimestampMicrosecond('UTC');
    case 'timestamp_ns': return new arrow.TimestampNanosecond();
    case 'timestamptz_ns': return new arrow.TimestampNanosecond('UTC');
    case 'string': return new arrow.Utf8();
    case 'binary': return new arrow.Binary();
    case 'uuid': return new arrow.FixedSizeBinary(16);
    default: {
      const d = parseDecimal(type);
      if (d) return new arrow.Decimal(d.scale, d.precision, 128);
      const f = /^fixed\[(\d+)\]$/.exec(type);
      if (f) return new arrow.FixedSizeBinary(Number(f[1]));
      throw new AppError('validation', `lake: unsupported Iceberg type ${type} for column ${column}`);
    }
  }
}

export function parseDecimal(type: string): { precision: number; scale: number } | null {
  const m = /^decimal\(\s*(\d+)\s*,\s*(\d+)\s*\)$/.exec(type);
  return m ? { precision: Number(m[1]), scale: Number(m[2]) } : null;
}

/** Arrow field for an Iceberg field, with its id in `PARQUET:field_id`. */
export function arrowFieldOf(f: IcebergField): arrow.Field {
  const md = new Map<string, string>([[FIELD_ID, String(f.id)]]);
  if (f.type === 'uuid') md.set('ARROW:extension:name', 'arrow.uuid');
  return new arrow.Field(f.name, arrowTypeOf(f.type, f.name), !f.required, md);
}

export function arrowSchemaOf(schema: IcebergSchema): arrow.Schema {
  return new arrow.Schema(schema.fields.map(arrowFieldOf));
}

/**
 * A fresh Iceberg schema from an Arrow schema: ids 1..n in column order, then
 * list element ids after them (as Iceberg assigns fresh ids: top level first).
 */
export function icebergSchemaFromArrow(schema: arrow.Schema, schemaId = 0, firstId = 1): IcebergSchema {
  const seen = new Set<string>();
  let next = firstId + schema.fields.length;
  return {
    type: 'struct',
    'schema-id': schemaId,
    fields: schema.fields.map((f, i) => {
      if (seen.has(f.name)) throw new AppError('validation', `lake: duplicate column ${f.name}`, { field: f.name });
      seen.add(f.name);
      const type = icebergTypeOf(f);
      if (isListType(type)) type['element-id'] = next++;
      return { id: firstId + i, name: f.name, required: !f.nullable, type };
    }),
  };
}

/** `schema.name-mapping.default` (spec: "Column Projection" / name mapping), so name-based readers find columns. */
export function nameMapping(schema: IcebergSchema): string {
  return JSON.stringify(schema.fields.map((f) => (isListType(f.type)
    ? { 'field-id': f.id, names: [f.name], fields: [{ 'field-id': f.type['element-id'], names: ['element'] }] }
    : { 'field-id': f.id, names: [f.name] })));
}

/** Is `from → to` a promotion the spec allows without rewriting files? (a list's element by the same rules) */
export function isLegalPromotion(from: IcebergType, to: IcebergType): boolean {
  if (isListType(from) || isListType(to)) {
    return isListType(from) && isListType(to) && isLegalPromotion(from.element, to.element) && (from['element-required'] || !to['element-required']);
  }
  if (from === to) return true;
  if (from === 'int' && to === 'long') return true;
  if (from === 'float' && to === 'double') return true;
  const a = parseDecimal(from), b = parseDecimal(to);
  return !!(a && b && a.scale === b.scale && b.precision >= a.precision);
}

/**
 * The narrowest type holding both `a` and `b` (schema union across branches),
 * or null when none exists. Decimal(18,2) ∪ decimal(18,4) → decimal(20,4).
 */
export function widenType(a: IcebergType, b: IcebergType): IcebergType | null {
  if (isListType(a) || isListType(b)) {
    if (!isListType(a) || !isListType(b)) return null;
    const e = widenType(a.element, b.element);
    return e === null || isListType(e) ? null : { ...a, element: e, 'element-required': a['element-required'] && b['element-required'] };
  }
  if (a === b) return a;
  if (isLegalPromotion(a, b)) return b;
  if (isLegalPromotion(b, a)) return a;
  const da = parseDecimal(a), db = parseDecimal(b);
  if (da && db) {
    const scale = Math.max(da.scale, db.scale);
    const intDigits = Math.max(da.precision - da.scale, db.precision - db.scale);
    const precision = intDigits + scale;
    return precision <= 38 ? `decimal(${precision}, ${scale})` : null;
  }
  const ints = ['int', 'long'];
  if (ints.includes(a) && ints.includes(b)) return 'long';
  if ((a === 'int' || a === 'long') && parseDecimal(b)) return widenType(a === 'int' ? 'decimal(10, 0)' : 'decimal(19, 0)', b);
  if ((b === 'int' || b === 'long') && parseDecimal(a)) return widenType(a, b === 'int' ? 'decimal(10, 0)' : 'decimal(19, 0)');
  if ((a === 'float' || a === 'double') && (b === 'float' || b === 'double')) return 'double';
  if ((a === 'int' && b === 'double') || (a === 'double' && b === 'int')) return 'double';
  if ((a === 'timestamp' && b === 'timestamptz') || (a === 'timestamptz' && b === 'timestamp')) return null;
  return null;
}
