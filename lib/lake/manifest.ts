/**
 * Manifests and manifest lists (spec: "Manifests", "Manifest Lists"), format v2,
 * with the exact Avro schemas, field ids and names Iceberg's writers use (the
 * Spark-written files in fixtures/iceberg-foreign/avro are the model).
 */
import { AppError } from '../errors';
import { avroType, readAvroFile, writeAvroFile } from './avro';
import { compare, decodeBound, encodeBound, toComparable, type Comparable } from './bounds';
import { parseDecimal, primitiveOf } from './schema';
import type { IcebergSchema, PartitionSpec } from './types';

export type ManifestStatus = 0 | 1 | 2; // EXISTING, ADDED, DELETED
export type FileContent = 0 | 1 | 2; // data, position deletes, equality deletes

interface KV<V> { key: number; value: V }

// The Avro form of Iceberg's fields (spec: "Avro"): a required field is its type; an optional
// one a union with null, defaulting to null. Both carry the field id and the spec's doc.
const required = (name: string, type: string, id: number, doc: string) => ({ name, type, doc, 'field-id': id });
const optional = (name: string, type: string, id: number, doc: string) => ({ name, type: ['null', type], default: null, doc, 'field-id': id });

export interface DataFileRec {
  content: FileContent;
  file_path: string;
  file_format: string;
  /** Avro-form partition values keyed by partition field name. */
  partition: Record<string, unknown>;
  record_count: bigint;
  file_size_in_bytes: bigint;
  column_sizes: KV<bigint>[] | null;
  value_counts: KV<bigint>[] | null;
  null_value_counts: KV<bigint>[] | null;
  nan_value_counts: KV<bigint>[] | null;
  lower_bounds: KV<Buffer>[] | null;
  upper_bounds: KV<Buffer>[] | null;
  key_metadata: Buffer | null;
  split_offsets: bigint[] | null;
  equality_ids: number[] | null;
  sort_order_id: number | null;
}

export interface ManifestEntry {
  status: ManifestStatus;
  snapshot_id: bigint | null;
  sequence_number: bigint | null;
  file_sequence_number: bigint | null;
  data_file: DataFileRec;
}

export interface FieldSummary { contains_null: boolean; contains_nan: boolean | null; lower_bound: Buffer | null; upper_bound: Buffer | null }

export interface ManifestFile {
  manifest_path: string;
  manifest_length: bigint;
  partition_spec_id: number;
  content: 0 | 1;
  sequence_number: bigint;
  min_sequence_number: bigint;
  added_snapshot_id: bigint;
  added_files_count: number;
  existing_files_count: number;
  deleted_files_count: number;
  added_rows_count: bigint;
  existing_rows_count: bigint;
  deleted_rows_count: bigint;
  partitions: FieldSummary[] | null;
  key_metadata: Buffer | null;
}

const kvArray = (name: string, keyId: number, valId: number, valType: string, fieldId: number, doc: string) => ({
  name, type: ['null', { type: 'array', items: { type: 'record', name: `k${keyId}_v${valId}`, fields: [{ name: 'key', type: 'int', 'field-id': keyId }, { name: 'value', type: valType, 'field-id': valId }] }, logicalType: 'map' }],
  default: null, doc, 'field-id': fieldId,
});

/** Avro schema of one Iceberg primitive (spec appendix A). */
export function avroTypeOfIceberg(type: string): unknown {
  switch (type) {
    case 'boolean': case 'int': case 'long': case 'float': case 'double': case 'string': return type;
    case 'binary': return 'bytes';
    case 'date': return { type: 'int', logicalType: 'date' };
    case 'time': return { type: 'long', logicalType: 'time-micros' };
    case 'timestamp': return { type: 'long', logicalType: 'timestamp-micros', 'adjust-to-utc': false };
    case 'timestamptz': return { type: 'long', logicalType: 'timestamp-micros', 'adjust-to-utc': true };
    case 'uuid': return { type: 'fixed', name: 'uuid_fixed', size: 16, logicalType: 'uuid' };
    default: {
      const d = parseDecimal(type);
      if (d) return { type: 'fixed', name: `decimal_${d.precision}_${d.scale}`, size: decimalSize(d.precision), logicalType: 'decimal', precision: d.precision, scale: d.scale };
      const f = /^fixed\[(\d+)\]$/.exec(type);
      if (f) return { type: 'fixed', name: `fixed_${f[1]}`, size: Number(f[1]) };
      throw new AppError('validation', `lake: unsupported partition type ${type}`, { field: 'partitionBy' });
    }
  }
}

/** Bytes needed for a decimal of this precision (spec: minimum bytes for fixed decimals). */
export function decimalSize(precision: number): number {
  for (let n = 1; ; n++) if (Math.floor(Math.log10(2 ** (8 * n - 1) - 1)) >= precision) return n;
}

/** The partition field's result type (identity only: the source type). */
export function partitionFieldType(schema: IcebergSchema, f: PartitionSpec['fields'][number]): string {
  const src = schema.fields.find((x) => x.id === f['source-id']);
  if (!src) throw new AppError('fatal', `lake: partition field ${f.name} has no source column ${f['source-id']}`);
  if (f.transform !== 'identity') throw new AppError('validation', `lake: unsupported partition transform ${f.transform} on ${f.name} (identity only)`, { field: 'partitionBy' });
  return primitiveOf(src, 'a partition');
}

export function manifestEntrySchema(schema: IcebergSchema, spec: PartitionSpec): object {
  const partitionFields = spec.fields.map((f) => ({
    name: f.name, type: ['null', avroTypeOfIceberg(partitionFieldType(schema, f))], default: null, 'field-id': f['field-id'],
  }));
  return {
    type: 'record', name: 'manifest_entry',
    fields: [
      { name: 'status', type: 'int', 'field-id': 0 },
      { name: 'snapshot_id', type: ['null', 'long'], default: null, 'field-id': 1 },
      { name: 'sequence_number', type: ['null', 'long'], default: null, 'field-id': 3 },
      { name: 'file_sequence_number', type: ['null', 'long'], default: null, 'field-id': 4 },
      {
        name: 'data_file', 'field-id': 2,
        type: {
          type: 'record', name: 'r2',
          fields: [
            required('content', 'int', 134, 'Contents of the file: 0=data, 1=position deletes, 2=equality deletes'),
            required('file_path', 'string', 100, 'Location URI with FS scheme'),
            required('file_format', 'string', 101, 'File format name: avro, orc, or parquet'),
            { name: 'partition', type: { type: 'record', name: 'r102', fields: partitionFields }, doc: 'Partition data tuple, schema based on the partition spec', 'field-id': 102 },
            required('record_count', 'long', 103, 'Number of records in the file'),
            required('file_size_in_bytes', 'long', 104, 'Total file size in bytes'),
            kvArray('column_sizes', 117, 118, 'long', 108, 'Map of column id to total size on disk'),
            kvArray('value_counts', 119, 120, 'long', 109, 'Map of column id to total count, including null and NaN'),
            kvArray('null_value_counts', 121, 122, 'long', 110, 'Map of column id to null value count'),
            kvArray('nan_value_counts', 138, 139, 'long', 137, 'Map of column id to number of NaN values in the column'),
            kvArray('lower_bounds', 126, 127, 'bytes', 125, 'Map of column id to lower bound'),
            kvArray('upper_bounds', 129, 130, 'bytes', 128, 'Map of column id to upper bound'),
            optional('key_metadata', 'bytes', 131, 'Encryption key metadata blob'),
            { name: 'split_offsets', type: ['null', { type: 'array', items: 'long', 'element-id': 133 }], default: null, doc: 'Splittable offsets', 'field-id': 132 },
            { name: 'equality_ids', type: ['null', { type: 'array', items: 'int', 'element-id': 136 }], default: null, doc: 'Equality comparison field IDs', 'field-id': 135 },
            optional('sort_order_id', 'int', 140, 'Sort order ID'),
          ],
        },
      },
    ],
  };
}

export const MANIFEST_LIST_SCHEMA = {
  type: 'record', name: 'manifest_file',
  fields: [
    required('manifest_path', 'string', 500, 'Location URI with FS scheme'),
    required('manifest_length', 'long', 501, 'Total file size in bytes'),
    required('partition_spec_id', 'int', 502, 'Spec ID used to write'),
    required('content', 'int', 517, 'Contents of the manifest: 0=data, 1=deletes'),
    required('sequence_number', 'long', 515, 'Sequence number when the manifest was added'),
    required('min_sequence_number', 'long', 516, 'Lowest sequence number in the manifest'),
    required('added_snapshot_id', 'long', 503, 'Snapshot ID that added the manifest'),
    required('added_files_count', 'int', 504, 'Added entry count'),
    required('existing_files_count', 'int', 505, 'Existing entry count'),
    required('deleted_files_count', 'int', 506, 'Deleted entry count'),
    required('added_rows_count', 'long', 512, 'Added rows count'),
    required('existing_rows_count', 'long', 513, 'Existing rows count'),
    required('deleted_rows_count', 'long', 514, 'Deleted rows count'),
    {
      name: 'partitions', default: null, doc: 'Summary for each partition', 'field-id': 507,
      type: ['null', {
        type: 'array', 'element-id': 508,
        items: {
          type: 'record', name: 'r508',
          fields: [
            required('contains_null', 'boolean', 509, 'True if any file has a null partition value'),
            optional('contains_nan', 'boolean', 518, 'True if any file has a nan partition value'),
            optional('lower_bound', 'bytes', 510, 'Partition lower bound for all files'),
            optional('upper_bound', 'bytes', 511, 'Partition upper bound for all files'),
          ],
        },
      }],
    },
    optional('key_metadata', 'bytes', 519, 'Implementation-specific key metadata for encryption'),
  ],
};

/** Avro schema → Iceberg schema JSON (`iceberg.schema` header key) for the manifest list; written once. */
const MANIFEST_LIST_ICEBERG_SCHEMA = JSON.stringify({
  type: 'struct', 'schema-id': 0,
  fields: MANIFEST_LIST_SCHEMA.fields.map((f) => ({ id: f['field-id'], name: f.name, required: !Array.isArray(f.type), type: icebergOfAvro(f.type) })),
});

function icebergOfAvro(t: unknown): unknown {
  if (Array.isArray(t)) return icebergOfAvro(t[1]);
  if (t === 'bytes') return 'binary';
  if (typeof t === 'string') return t;
  const o = t as { type: string; items?: unknown; fields?: { name: string; type: unknown; 'field-id': number }[]; 'element-id'?: number };
  if (o.type === 'array') return { type: 'list', 'element-id': o['element-id'], element: icebergOfAvro(o.items), 'element-required': true };
  if (o.type === 'record') return { type: 'struct', fields: o.fields!.map((f) => ({ id: f['field-id'], name: f.name, required: !Array.isArray(f.type), type: icebergOfAvro(f.type) })) };
  return o.type;
}

/** Comparable partition value → Avro form stored in the manifest. */
export function partitionValueToAvro(type: string, v: Comparable | null): unknown {
  if (v === null) return null;
  switch (type) {
    case 'boolean': return v === 1 || v === true;
    case 'int': case 'date': case 'float': case 'double': return Number(v);
    case 'long': case 'time': case 'timestamp': case 'timestamptz': return BigInt(v as bigint);
    case 'string': return new TextDecoder().decode(v as Uint8Array);
    default: {
      const d = parseDecimal(type);
      if (d) {
        const size = decimalSize(d.precision);
        const b = Buffer.alloc(size);
        let x = BigInt.asUintN(size * 8, v as bigint);
        for (let i = size - 1; i >= 0; i--) { b[i] = Number(x & 0xffn); x >>= 8n; }
        return b;
      }
      return Buffer.from(v as Uint8Array);
    }
  }
}

/** Avro-form partition value (as read from any writer's manifest) → comparable. */
export function partitionValueFromAvro(type: string, v: unknown): Comparable | null {
  if (v === null || v === undefined) return null;
  switch (type) {
    case 'boolean': return v ? 1 : 0;
    case 'string': return new TextEncoder().encode(String(v));
    case 'binary': case 'uuid': return new Uint8Array(v as Buffer);
    default: {
      if (parseDecimal(type)) {
        const b = v as Buffer; let x = 0n;
        for (const byte of b) x = (x << 8n) | BigInt(byte);
        return BigInt.asIntN(b.length * 8, x);
      }
      if (type.startsWith('fixed')) return new Uint8Array(v as Buffer);
      return toComparable(type, v);
    }
  }
}

/** A stable string key for a partition tuple (map keys, grouping). */
export function partitionKey(partition: Record<string, unknown>, spec: PartitionSpec): string {
  return spec.fields.map((f) => {
    const v = partition[f.name];
    if (v === null || v === undefined) return '∅';
    if (typeof v === 'bigint') return `${v}`;
    if (Buffer.isBuffer(v) || v instanceof Uint8Array) return Buffer.from(v).toString('hex');
    return JSON.stringify(v);
  }).join('|');
}

export function summarisePartitions(files: DataFileRec[], schema: IcebergSchema, spec: PartitionSpec): FieldSummary[] {
  return spec.fields.map((f) => {
    const type = partitionFieldType(schema, f);
    let containsNull = false; let lo: Comparable | null = null, hi: Comparable | null = null;
    for (const df of files) {
      const v = partitionValueFromAvro(type, df.partition[f.name]);
      if (v === null) { containsNull = true; continue; }
      if (lo === null || compare(v, lo) < 0) lo = v;
      if (hi === null || compare(v, hi) > 0) hi = v;
    }
    const enc = (x: Comparable | null, upper: boolean) => { if (x === null) return null; const b = encodeBound(type, x, upper); return b ? Buffer.from(b) : null; };
    return { contains_null: containsNull, contains_nan: type === 'float' || type === 'double' ? false : null, lower_bound: enc(lo, false), upper_bound: enc(hi, true) };
  });
}

/** Could a manifest hold files of this partition (by its field summaries)? */
export function manifestMayContain(m: ManifestFile, schema: IcebergSchema, spec: PartitionSpec, want: Record<string, Comparable | null>): boolean {
  if (!m.partitions) return true;
  for (let i = 0; i < spec.fields.length; i++) {
    const f = spec.fields[i];
    if (!(f.name in want)) continue;
    const s = m.partitions[i];
    if (!s) continue;
    const v = want[f.name];
    const type = partitionFieldType(schema, f);
    if (v === null) { if (!s.contains_null) return false; continue; }
    if (!s.lower_bound || !s.upper_bound) { if (!s.lower_bound && !s.upper_bound && s.contains_null) return false; continue; }
    const lo = decodeBound(type, s.lower_bound), hi = decodeBound(type, s.upper_bound);
    if (lo !== null && compare(v, lo) < 0) return false;
    if (hi !== null && compare(v, hi) > 0) return false;
  }
  return true;
}

export function writeManifest(entries: ManifestEntry[], schema: IcebergSchema, spec: PartitionSpec, content: 'data' | 'deletes'): Uint8Array {
  const avroSchema = manifestEntrySchema(schema, spec);
  return writeAvroFile(avroSchema, entries, {
    schema: JSON.stringify(schema),
    'schema-id': String(schema['schema-id']),
    'partition-spec': JSON.stringify(spec.fields),
    'partition-spec-id': String(spec['spec-id']),
    'format-version': '2',
    content,
  });
}

export function readManifest(bytes: Uint8Array, what: string): { entries: ManifestEntry[]; meta: Record<string, string> } {
  const f = readAvroFile<ManifestEntry>(bytes, what);
  for (const e of f.records) {
    const df = e.data_file as DataFileRec & { content?: FileContent };
    if (df.content === undefined) df.content = 0; // v1 manifests
    if (e.sequence_number === undefined) e.sequence_number = null;
    if (e.file_sequence_number === undefined) e.file_sequence_number = null;
  }
  return { entries: f.records, meta: f.meta };
}

export function writeManifestList(files: ManifestFile[], snapshotId: bigint, parentId: bigint | null, sequenceNumber: bigint): Uint8Array {
  return writeAvroFile(MANIFEST_LIST_SCHEMA, files, {
    'snapshot-id': String(snapshotId),
    'parent-snapshot-id': parentId === null ? 'null' : String(parentId),
    'sequence-number': String(sequenceNumber),
    'format-version': '2',
    'iceberg.schema': MANIFEST_LIST_ICEBERG_SCHEMA,
  });
}

export function readManifestList(bytes: Uint8Array, what: string): ManifestFile[] {
  const f = readAvroFile<Record<string, unknown>>(bytes, what);
  return f.records.map((r) => ({
    manifest_path: r.manifest_path as string,
    manifest_length: BigInt(r.manifest_length as bigint),
    partition_spec_id: r.partition_spec_id as number,
    content: (r.content ?? 0) as 0 | 1,
    sequence_number: BigInt((r.sequence_number ?? 0n) as bigint),
    min_sequence_number: BigInt((r.min_sequence_number ?? 0n) as bigint),
    added_snapshot_id: BigInt(r.added_snapshot_id as bigint),
    added_files_count: (r.added_files_count ?? r.added_data_files_count ?? 0) as number,
    existing_files_count: (r.existing_files_count ?? r.existing_data_files_count ?? 0) as number,
    deleted_files_count: (r.deleted_files_count ?? r.deleted_data_files_count ?? 0) as number,
    added_rows_count: BigInt((r.added_rows_count ?? 0n) as bigint),
    existing_rows_count: BigInt((r.existing_rows_count ?? 0n) as bigint),
    deleted_rows_count: BigInt((r.deleted_rows_count ?? 0n) as bigint),
    partitions: (r.partitions ?? null) as FieldSummary[] | null,
    key_metadata: (r.key_metadata ?? null) as Buffer | null,
  }));
}

// Validate the static schema once at load time (a typo here would corrupt every table).
avroType(MANIFEST_LIST_SCHEMA);
