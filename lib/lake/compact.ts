/**
 * Compaction (a `replace` snapshot, as Iceberg's rewrite-data-files): per
 * partition, when it has delete files to fold in or several files below 3/4
 * of the target size, its live rows are rewritten into fresh files and the
 * data and delete files it applied are removed — so no delete file dangles
 * and snapshot summaries stay exact. A concurrent commit to a compacted
 * partition is a conflict.
 */
import { applyDeletes, deleteIndex, planFiles, readDataFile, snapshotById, type PlannedFile } from './scan';
import { commitChange } from './snapshot-producer';
import { guarded, noop, type TableHandle } from './table-context';
import type { CommitResult } from './types';

export interface CompactOptions {
  /** Only this partition value. (Default: every partition worth it) */
  partition?: Record<string, unknown>;
}

export async function compact(t: TableHandle, opts: CompactOptions = {}): Promise<CommitResult> {
  const meta = t.metadata();
  const planned = await planFiles(t.view(), snapshotById(meta, meta['current-snapshot-id']), { partition: opts.partition });
  const target = t.prop('write.target-file-size-bytes', 128 * 1024 * 1024);
  const byPart = new Map<string, { data: PlannedFile[]; deletes: PlannedFile[] }>();
  const group = (p: PlannedFile) => { let g = byPart.get(p.partKey); if (!g) byPart.set(p.partKey, (g = { data: [], deletes: [] })); return g; };
  for (const p of planned.data) group(p).data.push(p);
  for (const p of planned.deletes) group(p).deletes.push(p);
  const chosen = [...byPart.entries()].filter(([, g]) => g.deletes.length > 0 || g.data.filter((d) => Number(d.entry.data_file.file_size_in_bytes) < target * 0.75).length > 1);
  if (!chosen.length) return noop(t.metadataLocation());
  const w = t.writer();
  const schema = t.schema(); const arrowT = t.arrowSchema();
  return guarded(t, async () => (await w.settled()).map((f) => f.file_path), async () => {
    const view = t.view();
    for (const [, g] of chosen) {
      const idx = deleteIndex(view, planned.deletes);
      for (const pf of g.data) {
        const pos = await idx.positions(pf);
        const eq = await idx.equality(pf);
        for await (const { batch, rowBase } of readDataFile(view, pf, schema, arrowT)) {
          const b = applyDeletes(batch, rowBase, schema, pos, eq, null);
          if (b.numRows) await w.write(b);
        }
      }
    }
    const files = await w.close();
    const removed = chosen.flatMap(([, g]) => [...g.data, ...g.deletes]);
    return commitChange(t, { operation: 'replace', added: files, removed, touched: new Set(chosen.map(([k]) => k)) });
  });
}
