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
import { planFiles, snapshotById, specById } from './scan';
import { commitChange } from './snapshot-producer';
import { guarded, noop, writeAll, type TableHandle } from './table-context';
import type { Batches, CommitResult } from './types';

export interface OverwriteOptions {
  /** Replace only the rows of this partition value. (Default: the whole table) */
  partition?: Record<string, unknown>;
}

export async function overwrite(t: TableHandle, batches: Batches, opts: OverwriteOptions = {}): Promise<CommitResult> {
  const w = t.writer();
  return guarded(t, async () => (await w.settled()).map((f) => f.file_path), async () => {
    const files = await writeAll(t, w, batches);
    return commitOverwrite(t, files, opts.partition, 'overwrite', 'rows');
  });
}

/** Overwrite by already-written Parquet files, adopted as they are. */
export async function replaceDataFiles(t: TableHandle, paths: string[], opts: OverwriteOptions = {}): Promise<CommitResult> {
  const files = await adoptRecords(t, paths);
  return commitOverwrite(t, files, opts.partition, 'replaceDataFiles', 'a file');
}

/**
 * Commit `files` as replacing the whole table, or one partition: every
 * current file of that partition is removed, and a file of another partition
 * is refused (it would be silently dropped by the next overwrite of its own).
 */
async function commitOverwrite(t: TableHandle, files: DataFileRec[], partition: Record<string, unknown> | undefined, op: string, what: string): Promise<CommitResult> {
  const meta = t.metadata();
  const spec = specById(meta, meta['default-spec-id']);
  const planned = await planFiles(t.view(), snapshotById(meta, meta['current-snapshot-id']), { partition });
  let touched: Set<string> | 'all' = 'all';
  if (partition) {
    const want = planned.data[0]?.partKey ?? null;
    for (const f of files) {
      const k = `${spec['spec-id']}/${partitionKey(f.partition, spec)}`;
      if (want && k !== want) throw new AppError('validation', `lake: ${op} of ${t.ident} partition ${JSON.stringify(partition)} got ${what} of another partition`, { field: 'partition' });
    }
    touched = new Set([...planned.data, ...planned.deletes].map((p) => p.partKey));
    for (const f of files) touched.add(`${spec['spec-id']}/${partitionKey(f.partition, spec)}`);
    if (!want) checkPartitionRows(t, files, partition);
  }
  const removed = [...planned.data, ...planned.deletes];
  if (!files.length && !removed.length) return noop(t.metadataLocation());
  return commitChange(t, { operation: 'overwrite', added: files, removed, touched });
}

function checkPartitionRows(t: TableHandle, files: DataFileRec[], partition: Record<string, unknown>): void {
  const schema = t.schema();
  const meta = t.metadata();
  const spec = specById(meta, meta['default-spec-id']);
  for (const f of files) {
    for (const [k, v] of Object.entries(partition)) {
      const pf = spec.fields.find((x) => x.name === k);
      if (!pf) throw new AppError('validation', `lake: ${k} is not a partition column of ${t.ident}`, { field: 'partition' });
      const type = partitionFieldType(schema, pf);
      const got = fromComparable(type, partitionValueFromAvro(type, f.partition[k]));
      if (String(got) !== String(v)) throw new AppError('validation', `lake: overwrite of ${t.ident} partition ${k}=${String(v)} got rows with ${k}=${String(got)}`, { field: 'partition' });
    }
  }
}
