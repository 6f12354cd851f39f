/**
 * Adopting already-written Parquet files (pyiceberg `add_files`): the data-file
 * records that describe them, without re-encoding. Statistics and the
 * partition come from the footer's row-group statistics wherever those are
 * exact; only the columns the footer cannot describe losslessly (decimals,
 * floats, truncated bounds) are decoded. A file whose schema is not exactly
 * the table's is decoded in full and conformed (the general path).
 */
import type * as arrow from 'apache-arrow';
import { AppError } from '../errors';
import { conformBatch } from './arrow-util';
import { columnStats, compare, emptyStats, mergeStats } from './bounds';
import { partitionFieldType, partitionValueToAvro, type DataFileRec } from './manifest';
import { footerStats, readParquetBatches, statsOf } from './parquet';
import { specById } from './scan';
import { arrowSchemaOf, FIELD_ID, primitiveTypes } from './schema';
import { splitByPartition } from './split';
import type { TableHandle } from './table-context';
import type { IcebergSchema, PartitionSpec } from './types';
import { dataFileRecord } from './writer';

const severalPartitions = (uri: string, n?: number) =>
  new AppError('validation', `lake: ${uri} holds rows of ${n ?? 'several'} partitions; one file must hold one partition`, { field: 'paths' });

export async function adoptRecords(t: TableHandle, paths: string[], opts: { /** Try the footer path first. (Default: true) */ footer?: boolean } = {}): Promise<DataFileRec[]> {
  const meta = t.metadata();
  const schema = t.schema();
  const spec = specById(meta, meta['default-spec-id']);
  const target = arrowSchemaOf(schema);
  const types = primitiveTypes(schema);
  const recs: DataFileRec[] = [];
  for (const p of paths) {
    const uri = /^[a-z][a-z0-9+.-]*:\/\//.test(p) ? p : `file://${p}`; // s3:// stays s3://
    // lazily read: the footer, and only the columns whose statistics it cannot give
    const blob = await t.ctx.storage.blob(uri);
    const fast = opts.footer === false ? null : await footerRecord(uri, blob, schema, spec, target, types).catch((e) => {
      if (e instanceof AppError && e.code === 'validation') throw e; // a file of several partitions is refused, not decoded again
      return null; // the footer path could not describe the file: the general path decodes it
    });
    if (fast) { recs.push(fast); continue; }
    const bytes = await t.ctx.storage.read(uri);
    const batches: arrow.RecordBatch[] = [];
    for await (const raw of readParquetBatches(bytes, uri)) {
      const ids = raw.schema.fields.map((f) => f.metadata.get(FIELD_ID));
      if (ids.some((x) => x === undefined)) throw new AppError('validation', `lake: ${uri}: every column needs a PARQUET:field_id to be adopted`, { field: 'paths' });
      batches.push(conformBatch(raw, target, t.ident));
    }
    const parts = new Set<string>(); let partition: Record<string, unknown> = {};
    for (const b of batches) for (const s of splitByPartition(b, schema, spec)) { parts.add(s.key); partition = s.partition; }
    if (parts.size > 1) throw severalPartitions(uri, parts.size);
    const rows = batches.reduce((s, b) => s + b.numRows, 0);
    recs.push(dataFileRecord({ path: uri, partition, rows, size: bytes.length, stats: statsOf(target, batches, types), types, content: 0 }));
  }
  return recs;
}

/** The footer path of `adoptRecords`; null when the file needs the general path. */
async function footerRecord(uri: string, bytes: Blob, schema: IcebergSchema, spec: PartitionSpec, target: arrow.Schema, types: Map<number, string>): Promise<DataFileRec | null> {
  const fs = await footerStats(bytes, target, types);
  if (!fs) return null;
  if (fs.decode.size) {
    const cols = target.fields.map((f, c) => ({ id: Number(f.metadata.get(FIELD_ID)), c })).filter((x) => fs.decode.has(x.id));
    const acc = new Map(cols.map((x) => [x.id, emptyStats()]));
    for await (const b of readParquetBatches(bytes, uri, { fieldIds: fs.decode })) {
      for (const x of cols) {
        const j = b.schema.fields.findIndex((f) => Number(f.metadata.get(FIELD_ID)) === x.id);
        if (j < 0) return null;
        acc.set(x.id, mergeStats(acc.get(x.id)!, columnStats(b.data.children[j], types.get(x.id)!)));
      }
    }
    for (const [id, st] of acc) fs.stats.set(id, st);
  }
  const partition: Record<string, unknown> = {};
  for (const pf of spec.fields) {
    const st = fs.stats.get(pf['source-id']);
    if (!st) return null;
    const ty = partitionFieldType(schema, pf);
    if (st.nullCount === st.valueCount) { partition[pf.name] = null; continue; }
    if (st.nullCount > 0 || st.min === null || st.max === null || compare(st.min, st.max) !== 0) throw severalPartitions(uri);
    partition[pf.name] = partitionValueToAvro(ty, st.min);
  }
  return dataFileRecord({ path: uri, partition, rows: fs.rows, size: bytes.size, stats: fs.stats, types, content: 0 });
}
