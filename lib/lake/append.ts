/**
 * Fast append (pyiceberg `_FastAppendFiles`): new data files in one `append`
 * snapshot. Touches no existing file, so it never conflicts: after a lost
 * race it is rebuilt on the winner's snapshot and retried.
 */
import { adoptRecords } from './adopt';
import { commitChange } from './snapshot-producer';
import { guarded, noop, writeAll, type TableHandle } from './table-context';
import type { Batches, CommitResult } from './types';

export async function append(t: TableHandle, batches: Batches): Promise<CommitResult> {
  const w = t.writer();
  return guarded(t, async () => (await w.settled()).map((f) => f.file_path), async () => {
    const files = await writeAll(t, w, batches);
    if (!files.length) return noop(t.metadataLocation());
    return commitChange(t, { operation: 'append', added: files, removed: [], touched: null });
  });
}

/** Append already-written Parquet files as they are. */
export async function appendDataFiles(t: TableHandle, paths: string[]): Promise<CommitResult> {
  const recs = await adoptRecords(t, paths);
  if (!recs.length) return noop(t.metadataLocation());
  return commitChange(t, { operation: 'append', added: recs, removed: [], touched: null });
}
