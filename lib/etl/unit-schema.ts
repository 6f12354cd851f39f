import * as arrow from 'apache-arrow';
import { fromArrowType, toArrowType, type ColumnType } from '../sources';

/** An Arrow schema as JSON (a fanned-out unit's payload): names, types, nullability, field metadata (Iceberg field ids). */
export interface SchemaField { name: string; type: ColumnType; nullable: boolean; metadata: Record<string, string> }

export function schemaToJson(s: arrow.Schema): SchemaField[] {
  return s.fields.map((f) => ({ name: f.name, type: fromArrowType(f.type), nullable: f.nullable, metadata: Object.fromEntries(f.metadata) }));
}

export function schemaFromJson(fields: SchemaField[]): arrow.Schema {
  return new arrow.Schema(fields.map((f) => new arrow.Field(f.name, toArrowType(f.type), f.nullable, new Map(Object.entries(f.metadata)))));
}
