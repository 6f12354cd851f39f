/**
 * Delete (pyiceberg `_DeleteFiles`): a whole partition by dropping its files
 * (metadata only), or rows by key through position-delete files
 * (merge-on-read, as `merge`). Commits a `delete` snapshot; a concurrent
 * commit to an affected partition is a conflict.
 */
import * as arrow from 'apache-arrow';
import { AppError } from '../errors';
import { makeBatch, nullData } from './arrow-util';
import { keyProbe } from './key-probe';
import { keyBatch } from './key-values';
import { holdsAnyKey, keyRanges, matchKeys, sortedKeys, writeDeletes } from './match-keys';
import { fileMayMatch, planFiles, snapshotById } from './scan';
import { arrowSchemaOf } from './schema';
import { commitChange } from './snapshot-producer';
import { columnIndex, guarded, noop, type TableHandle } from './table-context';
import type { CommitResult, DeleteOptions } from './types';

export async function deleteWhere(t: TableHandle, opts: DeleteOptions): Promise<CommitResult & { deleted: number }> {
  if (!opts.partition && !opts.keys) throw new AppError('validation', 'lake: deleteWhere needs partition or keys', { field: 'partition' });
  const meta = t.metadata();
  const schema = t.schema();
  const planned = await planFiles(t.view(), snapshotById(meta, meta['current-snapshot-id']), { partition: opts.partition });
  if (!opts.keys) {
    const removed = [...planned.data, ...planned.deletes];
    if (!removed.length) return { ...noop(t.metadataLocation()), deleted: 0 };
    const live = planned.data.reduce((s, d) => s + Number(d.entry.data_file.record_count), 0)
      - planned.deletes.filter((d) => d.entry.data_file.content === 1).reduce((s, d) => s + Number(d.entry.data_file.record_count), 0);
    const r = await commitChange(t, { operation: 'delete', added: [], removed, touched: new Set(removed.map((p) => p.partKey)) });
    return { ...r, deleted: live };
  }
  const keyCols = opts.keys.columns.map((k) => columnIndex(t, k, 'delete key', 'keys.columns'));
  // Key strings built the same way as from Arrow rows: through a one-batch table of the key values.
  const keyFields = keyCols.map((c) => arrowSchemaOf({ type: 'struct', 'schema-id': 0, fields: [schema.fields[c]] }).fields[0]);
  const kb = keyBatch(keyFields, opts.keys.values);
  const cols = kb.data.children;
  const probe = keyProbe(cols, keyCols.map((c) => String(schema.fields[c].type)), kb.numRows);
  const full = t.arrowSchema();
  const ranges = keyRanges(t, makeBatch(full, full.fields.map((f, c) => { const j = keyCols.indexOf(c); return j >= 0 ? kb.data.children[j] : nullData(f.type, kb.numRows); }), kb.numRows), keyCols);
  const sorted = sortedKeys(t, keyCols, kb.data.children);
  const candidates = planned.data.filter((d) => fileMayMatch(d.entry, schema, ranges) && (!sorted || holdsAnyKey(d, sorted)));
  const m = await matchKeys(t, candidates, planned.deletes, keyCols, probe, kb.numRows, []);
  let deleted = 0;
  for (const h of m.hits.values()) deleted += h.positions.length;
  if (!deleted) return { ...noop(t.metadataLocation()), deleted: 0 };
  const written: string[] = [];
  return guarded(t, () => written, async () => {
    const delFiles = await writeDeletes(t, m.hits, (path) => written.push(path));
    const r = await commitChange(t, { operation: 'delete', added: delFiles, removed: [], touched: new Set([...m.hits.values()].map((h) => h.pf.partKey)) });
    return { ...r, deleted };
  });
}
