/**
 * Table metadata files (spec: "Table Metadata"): reading one, the metadata of
 * a new table, the `v<N>.metadata.json` naming and the metadata log.
 */
import { unreadable } from './unreadable';
import crypto from 'node:crypto';
import { AppError } from '../errors';
import { parseMetadataJson, stringifyJson } from './metadata-json';
import { icebergSchemaFromArrow, maxFieldId, nameMapping } from './schema';
import type { Storage } from './storage';
import type { PartitionSpec, TableMetadata } from './types';
import type { CreateTableOptions } from './index';

export async function readMetadata(storage: Storage, loc: string, ident: string): Promise<TableMetadata> {
  let bytes: Uint8Array;
  try { bytes = await storage.read(loc); } catch (e) {
    throw new AppError('internal', unreadable(ident, 'metadata file', loc, e), { cause: e });
  }
  let meta: TableMetadata;
  // Not JSON.parse: snapshot ids above 2^53 must stay exact (metadata-json.ts).
  try { meta = parseMetadataJson(new TextDecoder().decode(bytes)) as TableMetadata; } catch (e) {
    throw new AppError('fatal', `lake: table ${ident}: corrupt metadata file ${loc}: ${(e as Error).message}`, { cause: e });
  }
  if (!meta || typeof meta !== 'object' || !Array.isArray(meta.schemas) || !meta.location) throw new AppError('fatal', `lake: table ${ident}: corrupt metadata file ${loc}: not Iceberg table metadata`);
  if (meta['format-version'] !== 2) throw new AppError('fatal', `lake: table ${ident}: metadata file ${loc} has format-version ${meta['format-version']}; only v2 is written`);
  meta.snapshots ??= []; meta['snapshot-log'] ??= []; meta['metadata-log'] ??= []; meta.refs ??= {};
  // No current snapshot: Java writes -1, older Tributary wrote null, a minimal writer may omit it.
  // In memory it is null; serialiseMetadata writes -1.
  const cur = meta['current-snapshot-id'] as bigint | null | undefined;
  if (cur === undefined || cur === null || cur === -1n) meta['current-snapshot-id'] = null;
  // Sequence numbers stay numbers (Tributary adds to them); one a double cannot hold is refused, never rounded.
  const seqs = [meta['last-sequence-number'], ...meta.snapshots.map((s) => s['sequence-number'])];
  if (seqs.some((n) => n !== undefined && typeof n !== 'number')) throw new AppError('fatal', `lake: table ${ident}: metadata file ${loc} has a sequence number above 2^53, which Tributary cannot commit on`);
  return meta;
}

/** Version number of a metadata file name (`v12.metadata.json` → 12, `00012-uuid.metadata.json` → 12). */
export function metadataVersion(loc: string): number {
  const name = loc.slice(loc.lastIndexOf('/') + 1);
  const m = /^v(\d+)\.metadata\.json$/.exec(name) ?? /^(\d+)-.*\.metadata\.json$/.exec(name);
  return m ? Number(m[1]) : 0;
}

export const metadataFile = (location: string, version: number) => `${location}/metadata/v${version}.metadata.json`;

/** Append the previous metadata file to `metadata-log` (capped). */
export function withMetadataLog(meta: TableMetadata, previous: { file: string; ts: number } | null): TableMetadata {
  if (!previous) return meta;
  const log = [...meta['metadata-log'], { 'metadata-file': previous.file, 'timestamp-ms': previous.ts }];
  // write.metadata.previous-versions-max (Default: 100)
  const max = Number(meta.properties['write.metadata.previous-versions-max'] ?? 100);
  return { ...meta, 'metadata-log': log.slice(Math.max(0, log.length - max)) };
}

/**
 * The metadata file's bytes: ids as exact digits (metadata-json.ts) and no current snapshot as -1,
 * as Java writes it: the REST spec types `current-snapshot-id` a non-null long, and Iceberg Java
 * before 1.4 fails on null.
 */
export function serialiseMetadata(meta: TableMetadata): Uint8Array {
  const cur = meta['current-snapshot-id'];
  return new TextEncoder().encode(stringifyJson({ ...meta, 'current-snapshot-id': cur === null || cur === undefined ? -1n : cur }, 2));
}

/** The metadata of a new, empty table at `location` (no snapshot yet). */
export function newTableMetadata(location: string, o: CreateTableOptions): TableMetadata {
  const schema = icebergSchemaFromArrow(o.schema);
  if (o.identifierColumns?.length) {
    schema['identifier-field-ids'] = o.identifierColumns.map((c) => {
      const f = schema.fields.find((x) => x.name === c);
      if (!f) throw new AppError('validation', `lake: identifier column ${c} is not in the schema`, { field: 'identifierColumns' });
      if (!f.required) throw new AppError('validation', `lake: identifier column ${c} must be non-nullable`, { field: 'identifierColumns' });
      return f.id;
    });
  }
  const spec: PartitionSpec = {
    'spec-id': 0,
    fields: (o.partitionBy ?? []).map((c, i) => {
      const f = schema.fields.find((x) => x.name === c);
      if (!f) throw new AppError('validation', `lake: partition column ${c} is not in the schema`, { field: 'partitionBy' });
      return { 'source-id': f.id, 'field-id': 1000 + i, name: c, transform: 'identity' };
    }),
  };
  return {
    'format-version': 2,
    'table-uuid': crypto.randomUUID(),
    location,
    'last-sequence-number': 0,
    'last-updated-ms': Date.now(),
    'last-column-id': maxFieldId(schema),
    'current-schema-id': 0,
    schemas: [schema],
    'default-spec-id': 0,
    'partition-specs': [spec],
    'last-partition-id': spec.fields.length ? 999 + spec.fields.length : 999,
    'default-sort-order-id': 0,
    'sort-orders': [{ 'order-id': 0, fields: [] }],
    properties: {
      'write.format.default': 'parquet',
      'write.parquet.compression-codec': 'zstd',
      'write.target-file-size-bytes': String(128 * 1024 * 1024),
      'write.delete.mode': 'merge-on-read',
      'write.update.mode': 'merge-on-read',
      'write.merge.mode': 'merge-on-read',
      ...o.properties,
      'schema.name-mapping.default': nameMapping(schema),
    },
    'current-snapshot-id': null,
    snapshots: [],
    'snapshot-log': [],
    'metadata-log': [],
    refs: {},
  };
}
