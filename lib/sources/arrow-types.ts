import * as arrow from 'apache-arrow';
import type { ColumnType } from './types';

/** The Arrow type Tributary writes for a logical column type. */
export function toArrowType(t: ColumnType): arrow.DataType {
  switch (t.kind) {
    case 'int': return new arrow.Int32();
    case 'long': return new arrow.Int64();
    case 'float': return new arrow.Float32();
    case 'double': return new arrow.Float64();
    case 'decimal': return new arrow.Decimal(t.scale, t.precision, 128);
    case 'string': return new arrow.Utf8();
    case 'binary': return new arrow.Binary();
    case 'boolean': return new arrow.Bool();
    case 'date': return new arrow.DateDay();
    case 'timestamp': return new arrow.Timestamp(arrow.TimeUnit.MICROSECOND, null);
    case 'timestamptz': return new arrow.Timestamp(arrow.TimeUnit.MICROSECOND, 'UTC');
    // elements are always optional (a PostgreSQL array may hold NULLs); the lake gives the element its field id
    case 'list': return new arrow.List(new arrow.Field('element', toArrowType(t.element), true));
  }
}

/** The logical type of an Arrow type (reading a lake table's schema back). */
export function fromArrowType(t: arrow.DataType): ColumnType {
  switch (t.typeId) {
    case arrow.Type.Int: {
      const it = t as arrow.Int;
      return it.bitWidth === 64 ? { kind: 'long' } : { kind: 'int' };
    }
    case arrow.Type.Float: return (t as arrow.Float).precision === arrow.Precision.SINGLE ? { kind: 'float' } : { kind: 'double' };
    case arrow.Type.Decimal: { const d = t as arrow.Decimal; return { kind: 'decimal', precision: d.precision, scale: d.scale }; }
    case arrow.Type.Utf8: case arrow.Type.LargeUtf8: return { kind: 'string' };
    case arrow.Type.Binary: case arrow.Type.LargeBinary: case arrow.Type.FixedSizeBinary: return { kind: 'binary' };
    case arrow.Type.Bool: return { kind: 'boolean' };
    case arrow.Type.Date: return { kind: 'date' };
    case arrow.Type.Timestamp: return (t as arrow.Timestamp).timezone ? { kind: 'timestamptz' } : { kind: 'timestamp' };
    case arrow.Type.List: {
      const e = fromArrowType((t as arrow.List).children[0].type);
      return { kind: 'list', element: e.kind === 'list' ? { kind: 'string' } : e };
    }
    default: return { kind: 'string' };
  }
}

export function typeToString(t: ColumnType): string {
  if (t.kind === 'list') return `list<${typeToString(t.element)}>`;
  return t.kind === 'decimal' ? `decimal(${t.precision},${t.scale})` : t.kind;
}

export function sameType(a: ColumnType, b: ColumnType): boolean {
  return typeToString(a) === typeToString(b);
}
