import * as arrow from 'apache-arrow';
import { fromArrowType, toArrowType, type ColumnType } from '../sources';

/**
 * An Arrow schema as JSON (a fanned-out unit's payload): names, types, nullability, field metadata
 * (Iceberg field ids) — and a list's element metadata (its element field id), which staged files must carry.
 */
export interface SchemaField { name: string; type: ColumnType; nullable: boolean; metadata: Record<string, string>; elementMetadata?: Record<string, string> }

export function schemaToJson(s: arrow.Schema): SchemaField[] {
  return s.fields.map((f) => {
    const out: SchemaField = { name: f.name, type: fromArrowType(f.type), nullable: f.nullable, metadata: Object.fromEntries(f.metadata) };
    if (f.type.typeId === arrow.Type.List) out.elementMetadata = Object.fromEntries((f.type as arrow.List).children[0].metadata);
    return out;
  });
}

export function schemaFromJson(fields: SchemaField[]): arrow.Schema {
  return new arrow.Schema(fields.map((f) => {
    let type = toArrowType(f.type);
    if (type.typeId === arrow.Type.List && f.elementMetadata) {
      const el = (type as arrow.List).children[0];
      type = new arrow.List(new arrow.Field(el.name, el.type, el.nullable, new Map(Object.entries(f.elementMetadata))));
    }
    return new arrow.Field(f.name, type, f.nullable, new Map(Object.entries(f.metadata)));
  }));
}
