/**
 * Overwrite (pyiceberg `_OverwriteFiles`): replace the whole table, or one
 * identity-partition value, by new rows or by adopted files, in one
 * `overwrite` snapshot. A concurrent commit to the replaced partitions (or,
 * for a whole-table overwrite, any concurrent data change) is a conflict.
 */
import { AppError } from '../errors';
import { adoptRecords } from './adopt';
import { fromComparable } from './bounds';
import { partitionFieldType, partitionKey, partitionValueFromAvro, type DataFileRec } from './manifest';
import { planFiles, snapshotById, specById, type PlannedFile } from './scan';
import { commitChange } from './snapshot-producer';
import { guarded, noop, writeAll, type TableHandle } from './table-context';
import type { Batches, CommitResult } from './types';

export interface OverwriteOptions {
  /** Replace only the rows of this partition value. (Default: the whole table) */
  partition?: Record<string, unknown>;
  /** Replace only the rows of these partition values, in one commit (a keyless ETL entry's branches). */
  partitions?: Record<string, unknown>[];
}

export async function overwrite(t: TableHandle, batches: Batches, opts: OverwriteOptions = {}): Promise<CommitResult> {
  const w = t.writer();
  return guarded(t, async () => (await w.settled()).map((f) => f.file_path), async () => {
    const files = await writeAll(t, w, batches);
    return commitOverwrite(t, files, partitionsOf(opts), 'overwrite', 'rows');
  });
}

/** Overwrite by already-written Parquet files, adopted as they are. */
export async function replaceDataFiles(t: TableHandle, paths: string[], opts: OverwriteOptions = {}): Promise<CommitResult> {
  const files = await adoptRecords(t, paths);
  return commitOverwrite(t, files, partitionsOf(opts), 'replaceDataFiles', 'a file');
}

/** The partition values an overwrite replaces; null: the whole table. */
function partitionsOf(opts: OverwriteOptions): Record<string, unknown>[] | null {
  if (opts.partition && opts.partitions) throw new AppError('validation', 'lake: an overwrite takes partition or partitions, not both', { field: 'partitions' });
  if (opts.partitions) {
    if (!opts.partitions.length) throw new AppError('validation', 'lake: an overwrite of no partition (an empty partitions list) would replace nothing', { field: 'partitions' });
    return opts.partitions;
  }
  return opts.partition ? [opts.partition] : null;
}

/**
 * Commit `files` as replacing the whole table, or some partitions: every
 * current file of those partitions is removed, and a file of another partition
 * is refused (it would be silently dropped by the next overwrite of its own).
 */
async function commitOverwrite(t: TableHandle, files: DataFileRec[], partitions: Record<string, unknown>[] | null, op: string, what: string): Promise<CommitResult> {
  const meta = t.metadata();
  const spec = specById(meta, meta['default-spec-id']);
  const snap = snapshotById(meta, meta['current-snapshot-id']);
  if (!partitions) {
    const planned = await planFiles(t.view(), snap);
    const removed = [...planned.data, ...planned.deletes];
    if (!files.length && !removed.length) return noop(t.metadataLocation());
    return commitChange(t, { operation: 'overwrite', added: files, removed, touched: 'all' });
  }
  const removed: PlannedFile[] = [];
  const touched = new Set<string>();
  for (const partition of partitions) {
    const planned = await planFiles(t.view(), snap, { partition });
    for (const p of [...planned.data, ...planned.deletes]) { removed.push(p); touched.add(p.partKey); }
  }
  for (const f of files) {
    if (!partitions.some((p) => holdsPartition(t, f, p))) {
      const which = partitions.length === 1 ? `partition ${JSON.stringify(partitions[0])}` : `partitions ${JSON.stringify(partitions)}`;
      throw new AppError('validation', `lake: ${op} of ${t.ident} ${which} got ${what} of another partition (${JSON.stringify(f.partition)})`, { field: 'partition' });
    }
    touched.add(`${spec['spec-id']}/${partitionKey(f.partition, spec)}`);
  }
  if (!files.length && !removed.length) return noop(t.metadataLocation());
  return commitChange(t, { operation: 'overwrite', added: files, removed, touched });
}

/** Does a data file's partition tuple equal this partition value (every named identity column)? */
function holdsPartition(t: TableHandle, f: DataFileRec, partition: Record<string, unknown>): boolean {
  const schema = t.schema();
  const meta = t.metadata();
  const spec = specById(meta, meta['default-spec-id']);
  return Object.entries(partition).every(([k, v]) => {
    const pf = spec.fields.find((x) => x.name === k);
    if (!pf) throw new AppError('validation', `lake: ${k} is not a partition column of ${t.ident}`, { field: 'partition' });
    const type = partitionFieldType(schema, pf);
    return String(fromComparable(type, partitionValueFromAvro(type, f.partition[k]))) === String(v);
  });
}
