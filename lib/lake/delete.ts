/**
 * Delete (pyiceberg `_DeleteFiles`): a whole partition by dropping its files
 * (metadata only), or rows by key through position-delete files
 * (merge-on-read, as `merge`). Commits a `delete` snapshot; a concurrent
 * commit to an affected partition is a conflict.
 */
import * as arrow from 'apache-arrow';
import { AppError } from '../errors';
import { makeBatch, nullData } from './arrow-util';
import { decimalWords } from './format';
import { keyProbe } from './key-probe';
import { keyRanges, matchKeys, writeDeletes } from './match-keys';
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
  const cols = keyFields.map((f, j) => arrow.vectorFromArray(opts.keys!.values.map((row) => toArrowValue(f.type, row[j])), f.type).data[0]);
  const kb = makeBatch(new arrow.Schema(keyFields), cols, opts.keys.values.length);
  const probe = keyProbe(cols, keyCols.map((c) => String(schema.fields[c].type)), kb.numRows);
  const full = t.arrowSchema();
  const ranges = keyRanges(t, makeBatch(full, full.fields.map((f, c) => { const j = keyCols.indexOf(c); return j >= 0 ? kb.data.children[j] : nullData(f.type, kb.numRows); }), kb.numRows), keyCols);
  const candidates = planned.data.filter((d) => fileMayMatch(d.entry, schema, ranges));
  const m = await matchKeys(t, candidates, planned.deletes, keyCols, probe, kb.numRows, []);
  let deleted = 0;
  for (const h of m.hits.values()) deleted += h.positions.length;
  if (!deleted) return { ...noop(t.metadataLocation()), deleted: 0 };
  const delFiles = await writeDeletes(t, m.hits);
  return guarded(t, () => delFiles.map((d) => d.file_path), async () => {
    const r = await commitChange(t, { operation: 'delete', added: delFiles, removed: [], touched: new Set([...m.hits.values()].map((h) => h.pf.partKey)) });
    return { ...r, deleted };
  });
}

/** A user value (from CLI/JSON) as what Arrow's builders take for `type`. */
function toArrowValue(type: arrow.DataType, v: unknown): unknown {
  if (v === null || v === undefined) return null;
  switch (type.typeId) {
    case arrow.Type.Int: return (type as arrow.Int).bitWidth === 64 ? BigInt(v as number) : Number(v);
    case arrow.Type.Float: return Number(v);
    case arrow.Type.Utf8: return String(v);
    case arrow.Type.Decimal: return decimalWords(String(v), (type as arrow.Decimal).scale);
    case arrow.Type.Date: return v instanceof Date ? v : new Date(typeof v === 'number' ? v * 86_400_000 : String(v));
    case arrow.Type.Timestamp: return v instanceof Date ? v.getTime() : typeof v === 'string' ? Date.parse(v) : Number(v);
    default: return v;
  }
}
