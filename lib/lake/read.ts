/**
 * The read operations: a table scan (projection, partition and bound pruning,
 * exact row filters, position and equality deletes applied) and the list of
 * live files of a snapshot.
 */
import * as arrow from 'apache-arrow';
import { AppError } from '../errors';
import { makeBatch } from './arrow-util';
import { decodeBound, fromComparable } from './bounds';
import { partitionFieldType, partitionValueFromAvro } from './manifest';
import { applyDeletes, deleteIndex, fileMayMatch, planFiles, readDataFile, rowFilter, snapshotById, specById, type PlannedFile, type TableView } from './scan';
import { arrowSchemaOf } from './schema';
import type { TableHandle } from './table-context';
import type { DataFileInfo, IcebergSchema, ScanFileCache, ScanOptions } from './types';

export async function* scanTable(t: TableHandle, opts: ScanOptions = {}): AsyncGenerator<arrow.RecordBatch> {
  const meta = t.metadata();
  const snap = snapshotById(meta, opts.snapshotId !== undefined ? opts.snapshotId : meta['current-snapshot-id']);
  const schemaId = opts.snapshotId !== undefined && snap?.['schema-id'] !== undefined ? snap['schema-id'] : meta['current-schema-id'];
  const schema = meta.schemas.find((s) => s['schema-id'] === schemaId) ?? t.schema();
  const target = arrowSchemaOf(schema);
  const cols = opts.columns ?? schema.fields.map((f) => f.name);
  const colIdx = cols.map((c) => {
    const i = schema.fields.findIndex((f) => f.name === c);
    if (i < 0) throw new AppError('validation', `lake: column ${c} is not in ${t.ident}`, { field: 'columns' });
    return i;
  });
  const outSchema = new arrow.Schema(colIdx.map((i) => target.fields[i]));
  const view = { ...t.view(), metadata: { ...meta, 'current-schema-id': schema['schema-id'] } };
  const planned = await planFiles(view, snap, { partition: opts.partition });
  const idx = deleteIndex(view, planned.deletes);
  rowFilter(schema, opts.filter); // an unknown filter column fails here, before any file is read
  let left = opts.limit ?? Infinity;
  for (const pf of planned.data) {
    if (left <= 0) return;
    if (!fileMayMatch(pf.entry, schema, opts.filter)) continue;
    const pos = await idx.positions(pf);
    const eq = await idx.equality(pf);
    const ids = new Set(colIdx.map((i) => schema.fields[i].id));
    for (const r of opts.filter ?? []) ids.add(schema.fields.find((f) => f.name === r.column)!.id);
    for (const e of eq) for (const id of e.ids) ids.add(id);
    // read only the columns needed here (output, filter, equality deletes)
    const sub: IcebergSchema = { ...schema, fields: schema.fields.filter((f) => ids.has(f.id)) };
    const out = colIdx.map((i) => sub.fields.findIndex((f) => f.id === schema.fields[i].id));
    const subFilter = rowFilter(sub, opts.filter);
    for await (const { batch, rowBase } of cachedDataFile(opts.fileCache, view, pf, sub, ids)) {
      let b = applyDeletes(batch, rowBase, sub, pos, eq, subFilter);
      if (!b.numRows) continue;
      if (b.numRows > left) b = b.slice(0, left);
      left -= b.numRows;
      yield makeBatch(outSchema, out.map((i) => b.data.children[i]), b.numRows);
      if (left <= 0) return;
    }
  }
}

/** readDataFile through the caller's file cache, when it gives one. */
async function* cachedDataFile(cache: ScanFileCache | undefined, view: TableView, pf: PlannedFile, sub: IcebergSchema, ids: Set<number>): AsyncGenerator<{ batch: arrow.RecordBatch; rowBase: number }> {
  if (!cache) { yield* readDataFile(view, pf, sub, arrowSchemaOf(sub), ids); return; }
  // the file path and the field ids read (with their types: a column widened by evolution reads anew)
  const key = `${pf.entry.data_file.file_path}\u0000${sub.fields.map((f) => `${f.id}:${JSON.stringify(f.type)}`).join(',')}`;
  let batches = cache.get(key);
  if (!batches) {
    batches = [];
    for await (const { batch } of readDataFile(view, pf, sub, arrowSchemaOf(sub), ids)) batches.push(batch);
    cache.set(key, batches);
  }
  let rowBase = 0;
  for (const batch of batches) { yield { batch, rowBase }; rowBase += batch.numRows; }
}

/** Live data and delete files of the current (or given) snapshot. */
export async function tableFiles(t: TableHandle, snapshotId?: bigint): Promise<DataFileInfo[]> {
  const meta = t.metadata();
  const snap = snapshotById(meta, snapshotId ?? meta['current-snapshot-id']);
  const planned = await planFiles(t.view(), snap);
  const schema = t.schema();
  return [...planned.data, ...planned.deletes].map((p) => {
    const spec = specById(meta, p.specId);
    const partition: Record<string, unknown> = {};
    for (const f of spec.fields) {
      const ty = partitionFieldType(schema, f);
      const v = fromComparable(ty, partitionValueFromAvro(ty, p.entry.data_file.partition[f.name]));
      partition[f.name] = typeof v === 'bigint' ? (v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : String(v)) : v;
    }
    const c = p.entry.data_file.content;
    const info: DataFileInfo = { path: p.entry.data_file.file_path, content: c === 0 ? 'data' : c === 1 ? 'position-deletes' : 'equality-deletes', partition, recordCount: Number(p.entry.data_file.record_count), fileSizeInBytes: Number(p.entry.data_file.file_size_in_bytes) };
    if (c === 0) {
      const lows = new Map((p.entry.data_file.lower_bounds ?? []).map((x) => [x.key, x.value]));
      const highs = new Map((p.entry.data_file.upper_bounds ?? []).map((x) => [x.key, x.value]));
      for (const f of schema.fields) {
        if (f.type !== 'int' && f.type !== 'long') continue;
        const lo = lows.get(f.id), hi = highs.get(f.id);
        const l = lo ? decodeBound(f.type, lo) : null, h = hi ? decodeBound(f.type, hi) : null;
        if (l === null || h === null) continue;
        (info.intBounds ??= {})[f.name] = { lower: BigInt(l as number | bigint), upper: BigInt(h as number | bigint) };
      }
    }
    return info;
  });
}
