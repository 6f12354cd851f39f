/**
 * Upsert by key within each partition — merge-on-read.
 *
 * Why position deletes rather than rewriting the hit files: a rewrite costs
 * reading AND re-encoding every row of every file a changed key lands in
 * (with keys spread over a partition that is the whole partition), while a
 * position delete costs reading the hit files once plus writing a few bytes
 * per changed row. So the merge writes (1) one position-delete file per
 * touched partition naming the (file, row) of each replaced row and (2) the
 * incoming rows as new data files; readers (icebird, ClickHouse, Spark,
 * Trino, pyiceberg) apply position deletes natively. Files are pruned by
 * partition and by the key columns' lower/upper bounds, so untouched
 * partitions and files are never opened. `compact()` folds the deletes back
 * into data files (and drops the delete files it applied) when they pile up.
 *
 * Commits as an `overwrite` snapshot; a concurrent commit to one of the
 * merged partitions is a conflict, any other is rebased over.
 */
import * as arrow from 'apache-arrow';
import { AppError } from '../errors';
import { concatBatches, makeBatch, nullData, takeBatch, takeData } from './arrow-util';
import { keyProbe } from './key-probe';
import { keyColumn } from './key-values';
import { keyRanges, matchKeys, writeDeletes, type Hits } from './match-keys';
import { fileMayMatch, planFiles, snapshotById, specById } from './scan';
import { arrowSchemaOf } from './schema';
import { commitChange } from './snapshot-producer';
import { splitByPartition } from './split';
import { collect, columnIndex, guarded, noop, type TableHandle } from './table-context';
import type { Batches, MergeOptions, MergeResult } from './types';

/**
 * The changes only (not the table), held in memory and grouped by partition:
 * the incoming rows, and the keys to delete as rows of the table schema
 * (nulls outside the key).
 */
async function changesByPartition(t: TableHandle, batches: Batches, deleteKeys: unknown[][] | undefined, keyCols: number[]) {
  const meta = t.metadata();
  const schema = t.schema(); const target = arrowSchemaOf(schema);
  const spec = specById(meta, meta['default-spec-id']);
  const parts = new Map<string, { partition: Record<string, unknown>; batches: arrow.RecordBatch[] }>();
  for (const b of await collect(batches, target, t.ident)) {
    for (const s of splitByPartition(b, schema, spec)) {
      const k = `${spec['spec-id']}/${s.key}`;
      let p = parts.get(k); if (!p) parts.set(k, (p = { partition: s.partition, batches: [] }));
      p.batches.push(s.batch);
    }
  }
  const delParts = new Map<string, { partition: Record<string, unknown>; batch: arrow.RecordBatch }>();
  if (deleteKeys?.length) {
    const n = deleteKeys.length;
    const children = target.fields.map((f, c) => {
      const j = keyCols.indexOf(c);
      return j >= 0 ? keyColumn(f, deleteKeys.map((row) => row[j])) : nullData(f.type, n);
    });
    for (const s of splitByPartition(makeBatch(target, children as never, n), schema, spec)) delParts.set(`${spec['spec-id']}/${s.key}`, { partition: s.partition, batch: s.batch });
  }
  return { parts, delParts };
}

export async function merge(t: TableHandle, batches: Batches, opts: MergeOptions): Promise<MergeResult> {
  if (!opts.keys?.length) throw new AppError('validation', 'lake: merge needs at least one key column', { field: 'keys' });
  const meta = t.metadata();
  const schema = t.schema(); const target = arrowSchemaOf(schema);
  const spec = specById(meta, meta['default-spec-id']);
  const keyCols = opts.keys.map((k) => columnIndex(t, k, 'merge key', 'keys'));
  const carry = (opts.carryForward ?? []).map((k) => columnIndex(t, k, 'carryForward column', 'carryForward'));
  const prevCols = (opts.returnPrevious ?? []).map((k) => columnIndex(t, k, 'returnPrevious column', 'returnPrevious'));

  // Within one partition an identity-partition key column is constant: match on the other key
  // columns only (a single integer key then takes matchKeys' typed-array fast path).
  const partSources = new Set(spec.fields.filter((f) => f.transform === 'identity').map((f) => f['source-id']));
  const inPart = keyCols.filter((c) => !partSources.has(schema.fields[c].id));
  const matchCols = inPart.length ? inPart : keyCols;
  const { parts, delParts } = await changesByPartition(t, batches, opts.deleteKeys, keyCols);
  const soft = opts.softDelete ? { col: columnIndex(t, opts.softDelete.column, 'softDelete column', 'softDelete.column'), value: opts.softDelete.value } : null;
  for (const [pk, d] of delParts) if (!parts.has(pk)) parts.set(pk, { partition: d.partition, batches: [] });
  let deleted = 0;
  const deletedByPartition: { partition: Record<string, unknown>; rows: number }[] = [];
  const planned = await planFiles(t.view(), snapshotById(meta, meta['current-snapshot-id']));
  const w = t.writer();
  const written: string[] = [];
  let inserted = 0, updated = 0;
  const previous: Record<string, unknown>[] = [];
  const allHits: Hits = new Map();
  /**
   * One partition's upserts (`input`, keys distinct) and deletes (`dels`) matched in a single scan
   * of its files with one probe over both. False (nothing done) when a key is in both or twice in
   * the deletes: the two-pass road below handles those.
   */
  const upsertAndDelete = async (pk: string, partition: Record<string, unknown>, input0: arrow.RecordBatch, dels: arrow.RecordBatch, types: string[]): Promise<boolean> => {
    let input = input0;
    // last row wins for keys repeated in the input (as below)
    let probe = keyProbe(matchCols.map((c) => input.data.children[c]), types, input.numRows);
    if (probe.size !== input.numRows) {
      if (opts.duplicateKeys === 'error') return false;
      const find = probe.bind(matchCols.map((c) => input.data.children[c]));
      const lastRows: number[] = [];
      for (let i = 0; i < input.numRows; i++) if (find(i) === i) lastRows.push(i);
      input = takeBatch(input, lastRows);
    }
    const nIn = input.numRows;
    const both = concatBatches(target, [input, dels]);
    probe = keyProbe(matchCols.map((c) => both.data.children[c]), types, both.numRows);
    if (probe.size !== both.numRows) return false;
    const candidates = planned.data.filter((d) => d.partKey === pk && fileMayMatch(d.entry, schema, keyRanges(t, both, matchCols)));
    const deletes = planned.deletes.filter((d) => d.partKey === pk || specById(meta, d.specId).fields.length === 0);
    const keep = soft ? target.fields.map((_, c) => c) : [...new Set(carry)];
    const m = await matchKeys(t, candidates, deletes, matchCols, probe, both.numRows, keep, nIn);
    for (const [path, h] of m.hits) {
      const prev = allHits.get(path);
      if (prev) prev.positions.push(...h.positions); else allHits.set(path, h);
    }
    let up = 0;
    for (let j = 0; j < nIn; j++) if (m.oldOf[j] >= 0) up++;
    updated += up; inserted += nIn - up;
    deleted += m.hitsFrom;
    if (m.hitsFrom) deletedByPartition.push({ partition, rows: m.hitsFrom });
    const old = m.old;
    if (soft && old) {
      // the deleted rows written again with the soft-delete column set (their other values kept)
      const rows: number[] = [];
      for (let j = nIn; j < both.numRows; j++) if (m.oldOf[j] >= 0) rows.push(m.oldOf[j]);
      if (rows.length) {
        const o = takeBatch(old, rows);
        const stamp = keyColumn(target.fields[soft.col], new Array(o.numRows).fill(soft.value));
        await w.write(makeBatch(target, o.data.children.map((d, c) => (c === soft.col ? stamp : d)) as never, o.numRows));
      }
    }
    if (old && carry.length) {
      const idx = new Int32Array(nIn);
      for (let i = 0; i < nIn; i++) idx[i] = m.oldOf[i] < 0 ? i : nIn + m.oldOf[i];
      const children = input.data.children.map((d, c) => {
        if (!carry.includes(c)) return d;
        const one = new arrow.Schema([target.fields[c]]);
        const joined = concatBatches(one, [makeBatch(one, [d], nIn), makeBatch(one, [old.data.children[keep.indexOf(c)]], old.numRows)]);
        return takeData(joined.data.children[0], idx);
      });
      input = makeBatch(target, children, nIn);
    }
    await w.write(input);
    return true;
  };
  return guarded(t, () => [...w.written.map((f) => f.file_path), ...written], async () => {
    for (const [pk, p] of parts) {
      let input = p.batches.length ? concatBatches(target, p.batches) : makeBatch(target, target.fields.map((f) => nullData(f.type, 0)) as never, 0);
      const types = matchCols.map((c) => String(schema.fields[c].type));
      const del = delParts.get(pk);
      const dprobe = del ? keyProbe(matchCols.map((c) => del.batch.data.children[c]), types, del.batch.numRows) : null;
      if (del && input.numRows) {
        // an incoming row whose key the source no longer holds: the delete is the later fact
        const find = dprobe!.bind(matchCols.map((c) => input.data.children[c]));
        const alive: number[] = [];
        for (let i = 0; i < input.numRows; i++) if (find(i) < 0) alive.push(i);
        if (alive.length < input.numRows) input = takeBatch(input, alive);
      }
      if (del && input.numRows && !prevCols.length) {
        // Upserts and deletes in one pass over the partition's key columns: deletes are scattered,
        // like updates, so each pass alone would read every file of the partition.
        const done = await upsertAndDelete(pk, p.partition, input, del.batch, types);
        if (done) continue;
      }
      if (del) {
        const dplanned = planned.data.filter((d) => d.partKey === pk && fileMayMatch(d.entry, schema, keyRanges(t, del.batch, matchCols)));
        const ddeletes = planned.deletes.filter((d) => d.partKey === pk || specById(meta, d.specId).fields.length === 0);
        const all = target.fields.map((_, c) => c);
        const dm = await matchKeys(t, dplanned, ddeletes, matchCols, dprobe!, del.batch.numRows, soft ? all : []);
        let n = 0;
        for (const [path, h] of dm.hits) {
          const prev = allHits.get(path);
          if (prev) prev.positions.push(...h.positions); else allHits.set(path, h);
          n += h.positions.length;
        }
        deleted += n;
        if (n) deletedByPartition.push({ partition: p.partition, rows: n });
        if (soft && dm.old && dm.old.numRows) {
          // the deleted rows written again with the soft-delete column set (its other values kept)
          const o = dm.old;
          const stamp = keyColumn(target.fields[soft.col], new Array(o.numRows).fill(soft.value));
          await w.write(makeBatch(target, o.data.children.map((d, c) => (c === soft.col ? stamp : d)) as never, o.numRows));
        }
      }
      if (!input.numRows) continue;
      let probe = keyProbe(matchCols.map((c) => input.data.children[c]), types, input.numRows);
      if (probe.size !== input.numRows) {
        if (opts.duplicateKeys === 'error') {
          throw new AppError('validation', `lake: merge into ${t.ident}: ${input.numRows - probe.size} incoming row(s) share their key (${opts.keys.join(', ')}) with another incoming row; nothing was written`, { field: 'keys' });
        }
        // Last row wins for keys repeated in the input (the probe maps each key to its last row).
        const find = probe.bind(matchCols.map((c) => input.data.children[c]));
        const lastRows: number[] = [];
        for (let i = 0; i < input.numRows; i++) if (find(i) === i) lastRows.push(i);
        input = takeBatch(input, lastRows);
        probe = keyProbe(matchCols.map((c) => input.data.children[c]), types, input.numRows);
      }
      const ranges = keyRanges(t, input, matchCols);
      const candidates = planned.data.filter((d) => d.partKey === pk && fileMayMatch(d.entry, schema, ranges));
      const deletes = planned.deletes.filter((d) => d.partKey === pk || specById(meta, d.specId).fields.length === 0);
      const keep = [...new Set([...carry, ...prevCols, ...(prevCols.length ? keyCols : [])])];
      const m = await matchKeys(t, candidates, deletes, matchCols, probe, input.numRows, keep);
      for (const [path, h] of m.hits) {
        const prev = allHits.get(path);
        if (prev) prev.positions.push(...h.positions); else allHits.set(path, h);
      }
      updated += m.matched; inserted += probe.size - m.matched;
      if (m.old) {
        const old = m.old;
        if (prevCols.length) {
          const vecs = [...keyCols, ...prevCols].map((c) => arrow.makeVector(old.data.children[keep.indexOf(c)]));
          const names = [...keyCols, ...prevCols].map((c) => schema.fields[c].name);
          for (let i = 0; i < old.numRows; i++) previous.push(Object.fromEntries(names.map((n, j) => [n, vecs[j].get(i)])));
        }
        if (carry.length) {
          // Output column = input value, or the table's value for updated rows: one take over [input ++ old].
          const idx = new Int32Array(input.numRows);
          for (let i = 0; i < input.numRows; i++) idx[i] = m.oldOf[i] < 0 ? i : input.numRows + m.oldOf[i];
          const children = input.data.children.map((d, c) => {
            if (!carry.includes(c)) return d;
            const one = new arrow.Schema([target.fields[c]]);
            const both = concatBatches(one, [makeBatch(one, [d], input.numRows), makeBatch(one, [old.data.children[keep.indexOf(c)]], old.numRows)]);
            return takeData(both.data.children[0], idx);
          });
          input = makeBatch(target, children, input.numRows);
        }
      }
      await w.write(input);
    }
    const files = await w.close();
    const delFiles = await writeDeletes(t, allHits);
    written.push(...delFiles.map((d) => d.file_path));
    const base = { inserted, updated, deleted, deletedByPartition, ...(opts.returnPrevious ? { previous } : {}) };
    if (!files.length && !delFiles.length) return { ...noop(t.metadataLocation()), ...base };
    const r = await commitChange(t, { operation: 'overwrite', added: [...files, ...delFiles], removed: [], touched: new Set(parts.keys()) });
    return { ...r, ...base };
  });
}
