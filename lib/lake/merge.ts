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
import { concatBatches, concatData, makeBatch, nullData, takeBatch, takeData } from './arrow-util';
import { keyProbe, type KeyProbe } from './key-probe';
import { keyColumn } from './key-values';
import { holdsAnyKey, keyColumnRanges, keyRanges, matchKeys, sortedKeys, writeDeletes, type Hits, type SortedKeys } from './match-keys';
import { fileMayMatch, planFiles, snapshotById, specById, type PlannedFile } from './scan';
import { arrowSchemaOf } from './schema';
import { commitChange } from './snapshot-producer';
import { splitByPartition } from './split';
import { collect, columnIndex, guarded, noop, type TableHandle } from './table-context';
import type { Batches, ColumnRange, IcebergSchema, LateDeleteKeys, MergeOptions, MergeResult, PartitionSpec, TableMetadata } from './types';
import type { DataFileWriter } from './writer';

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
  return { parts, delParts: deletesByPartition(t, deleteKeys, keyCols) };
}

/** Delete keys as rows of the table schema (nulls outside the key), grouped by partition. */
function deletesByPartition(t: TableHandle, deleteKeys: unknown[][] | undefined, keyCols: number[]): Map<string, DelPart> {
  const meta = t.metadata();
  const schema = t.schema(); const target = arrowSchemaOf(schema);
  const spec = specById(meta, meta['default-spec-id']);
  const delParts = new Map<string, DelPart>();
  if (!deleteKeys?.length) return delParts;
  const n = deleteKeys.length;
  const children = target.fields.map((f, c) => {
    const j = keyCols.indexOf(c);
    return j >= 0 ? keyColumn(f, deleteKeys.map((row) => row[j])) : nullData(f.type, n);
  });
  for (const s of splitByPartition(makeBatch(target, children as never, n), schema, spec)) delParts.set(`${spec['spec-id']}/${s.key}`, { partition: s.partition, batch: s.batch });
  return delParts;
}

/**
 * Resolved once per merge and read by every step below: the table's shape, the option columns,
 * the files planned at the base snapshot, the one data-file writer, and the running totals.
 */
interface MergeRun {
  t: TableHandle;
  opts: MergeOptions;
  meta: TableMetadata;
  schema: IcebergSchema;
  target: arrow.Schema;
  keyCols: number[];
  carry: number[];
  prevCols: number[];
  /** The key columns a partition's rows are matched on (see `matchColumns`). */
  matchCols: number[];
  /** `matchCols`' Iceberg type names, for `keyProbe`. */
  types: string[];
  soft: { col: number; value: unknown } | null;
  planned: Awaited<ReturnType<typeof planFiles>>;
  w: DataFileWriter;
  inserted: number;
  updated: number;
  deleted: number;
  deletedByPartition: { partition: Record<string, unknown>; rows: number }[];
  previous: Record<string, unknown>[];
  /** Every replaced or deleted row by file: one position-delete file per partition at the end. */
  allHits: Hits;
}

type Part = { partition: Record<string, unknown>; batches: arrow.RecordBatch[] };
type DelPart = { partition: Record<string, unknown>; batch: arrow.RecordBatch };

/**
 * Within one partition an identity-partition key column is constant: match on the other key
 * columns only (a single integer key then takes matchKeys' typed-array fast path).
 */
function matchColumns(schema: IcebergSchema, spec: PartitionSpec, keyCols: number[]): number[] {
  const partSources = new Set(spec.fields.filter((f) => f.transform === 'identity').map((f) => f['source-id']));
  const inPart = keyCols.filter((c) => !partSources.has(schema.fields[c].id));
  return inPart.length ? inPart : keyCols;
}

/**
 * Options validated and resolved, the changes grouped by partition, and the table's files planned.
 * The order of the checks is the order their errors are reported in (keys, option columns, the
 * input's shape, then the soft-delete column).
 */
async function startMerge(t: TableHandle, batches: Batches, opts: MergeOptions): Promise<{ run: MergeRun; parts: Map<string, Part>; delParts: Map<string, DelPart> }> {
  if (!opts.keys?.length) throw new AppError('validation', 'lake: merge needs at least one key column', { field: 'keys' });
  if (opts.lateDeleteKeys && opts.deleteKeys?.length) throw new AppError('validation', 'lake: merge takes deleteKeys or lateDeleteKeys, not both', { field: 'lateDeleteKeys' });
  const meta = t.metadata();
  const schema = t.schema(); const target = arrowSchemaOf(schema);
  const spec = specById(meta, meta['default-spec-id']);
  const keyCols = opts.keys.map((k) => columnIndex(t, k, 'merge key', 'keys'));
  const carry = (opts.carryForward ?? []).map((k) => columnIndex(t, k, 'carryForward column', 'carryForward'));
  const prevCols = (opts.returnPrevious ?? []).map((k) => columnIndex(t, k, 'returnPrevious column', 'returnPrevious'));
  const matchCols = matchColumns(schema, spec, keyCols);
  const { parts, delParts } = await changesByPartition(t, batches, opts.deleteKeys, keyCols);
  const soft = opts.softDelete ? { col: columnIndex(t, opts.softDelete.column, 'softDelete column', 'softDelete.column'), value: opts.softDelete.value } : null;
  // a partition with deletes only is visited like one with upserts (its input is empty)
  for (const [pk, d] of delParts) if (!parts.has(pk)) parts.set(pk, { partition: d.partition, batches: [] });
  const planned = await planFiles(t.view(), snapshotById(meta, meta['current-snapshot-id']));
  const run: MergeRun = {
    t, opts, meta, schema, target, keyCols, carry, prevCols, matchCols, soft, planned,
    types: matchCols.map((c) => String(schema.fields[c].type)),
    w: t.writer(),
    inserted: 0, updated: 0, deleted: 0, deletedByPartition: [], previous: [], allHits: new Map(),
  };
  return { run, parts, delParts };
}

/** "Which row of `b` has this key?" over the columns a partition is matched on. */
function probeKeys(run: MergeRun, b: arrow.RecordBatch): KeyProbe {
  return keyProbe(run.matchCols.map((c) => b.data.children[c]), run.types, b.numRows);
}

/** Last row wins for keys repeated in the input (the probe maps each key to its last row). */
function lastRowPerKey(run: MergeRun, input: arrow.RecordBatch, probe: KeyProbe): arrow.RecordBatch {
  const find = probe.bind(run.matchCols.map((c) => input.data.children[c]));
  const lastRows: number[] = [];
  for (let i = 0; i < input.numRows; i++) if (find(i) === i) lastRows.push(i);
  return takeBatch(input, lastRows);
}

/** An incoming row whose key the source no longer holds is dropped: the delete is the later fact. */
function dropDeletedKeys(run: MergeRun, input: arrow.RecordBatch, dprobe: KeyProbe): arrow.RecordBatch {
  const find = dprobe.bind(run.matchCols.map((c) => input.data.children[c]));
  const alive: number[] = [];
  for (let i = 0; i < input.numRows; i++) if (find(i) < 0) alive.push(i);
  return alive.length < input.numRows ? takeBatch(input, alive) : input;
}

/**
 * The partition's data files whose key bounds may hold one of the keys — within the keys' [min,
 * max] and, for a single integer key, around one of the keys themselves — and the delete files
 * that apply to them (the partition's own and unpartitioned ones). `ranges` and `keys` (the
 * incoming key columns) are asked for only when the partition has a data file on the plan.
 */
function partitionFiles(run: MergeRun, pk: string, ranges: () => ColumnRange[], keys: () => arrow.Data[]) {
  let r: ColumnRange[] | undefined;
  let sorted: SortedKeys | null | undefined;
  const mayHold = (d: PlannedFile) => {
    if (!fileMayMatch(d.entry, run.schema, (r ??= ranges()))) return false;
    if (sorted === undefined) sorted = sortedKeys(run.t, run.matchCols, keys());
    return !sorted || holdsAnyKey(d, sorted);
  };
  const candidates = run.planned.data.filter((d) => d.partKey === pk && mayHold(d));
  const deletes = run.planned.deletes.filter((d) => d.partKey === pk || specById(run.meta, d.specId).fields.length === 0);
  return { candidates, deletes };
}

/** One match's hit rows folded into the merge's; returns how many rows it hit. */
function addHits(run: MergeRun, hits: Hits): number {
  let n = 0;
  for (const [path, h] of hits) {
    const prev = run.allHits.get(path);
    if (prev) prev.positions.push(...h.positions); else run.allHits.set(path, h);
    n += h.positions.length;
  }
  return n;
}

/** A soft delete: the deleted rows (`o`, every column) written again with the soft-delete column set, their other values kept. */
async function writeSoftDeleted(run: MergeRun, o: arrow.RecordBatch): Promise<void> {
  const soft = run.soft!;
  const stamp = keyColumn(run.target.fields[soft.col], new Array(o.numRows).fill(soft.value));
  await run.w.write(makeBatch(run.target, o.data.children.map((d, c) => (c === soft.col ? stamp : d)) as never, o.numRows));
}

/**
 * `carryForward`: each carried column takes the input's value, or the table's previous value for an
 * updated row — one take over [input ++ old]. `old` holds the `keep` columns; `oldOf[i]` is input
 * row i's row in it, or -1 when its key is new.
 */
function carryForward(run: MergeRun, input: arrow.RecordBatch, old: arrow.RecordBatch, oldOf: Int32Array, keep: number[]): arrow.RecordBatch {
  const n = input.numRows;
  const idx = new Int32Array(n);
  for (let i = 0; i < n; i++) idx[i] = oldOf[i] < 0 ? i : n + oldOf[i];
  const children = input.data.children.map((d, c) => {
    if (!run.carry.includes(c)) return d;
    const one = new arrow.Schema([run.target.fields[c]]);
    const joined = concatBatches(one, [makeBatch(one, [d], n), makeBatch(one, [old.data.children[keep.indexOf(c)]], old.numRows)]);
    return takeData(joined.data.children[0], idx);
  });
  return makeBatch(run.target, children, n);
}

/**
 * One partition's upserts (`input0`) and deletes (`dels`) matched in a single scan of its files
 * with one probe over both: deletes are scattered, like updates, so each pass alone would read
 * every file of the partition. False (nothing done) when a key is in both, twice in the deletes,
 * or twice in the input under `duplicateKeys: 'error'`: the two-pass road handles those.
 */
async function upsertAndDelete(run: MergeRun, pk: string, partition: Record<string, unknown>, input0: arrow.RecordBatch, dels: arrow.RecordBatch): Promise<boolean> {
  let input = input0;
  const inProbe = probeKeys(run, input);
  if (inProbe.size !== input.numRows) {
    if (run.opts.duplicateKeys === 'error') return false;
    input = lastRowPerKey(run, input, inProbe);
  }
  const nIn = input.numRows;
  const both = concatBatches(run.target, [input, dels]);
  const probe = probeKeys(run, both);
  if (probe.size !== both.numRows) return false;
  const { candidates, deletes } = partitionFiles(run, pk, () => keyRanges(run.t, both, run.matchCols), () => run.matchCols.map((c) => both.data.children[c]));
  const keep = run.soft ? run.target.fields.map((_, c) => c) : [...new Set(run.carry)];
  const m = await matchKeys(run.t, candidates, deletes, run.matchCols, probe, both.numRows, keep, { splitAt: nIn, knownKeys: run.opts.knownKeys });
  addHits(run, m.hits);
  let up = 0;
  for (let j = 0; j < nIn; j++) if (m.oldOf[j] >= 0) up++;
  run.updated += up; run.inserted += nIn - up;
  run.deleted += m.hitsFrom;
  if (m.hitsFrom) run.deletedByPartition.push({ partition, rows: m.hitsFrom });
  const old = m.old;
  if (run.soft && old) {
    // the old rows matched by a delete key (rows nIn.. of `both`)
    const rows: number[] = [];
    for (let j = nIn; j < both.numRows; j++) if (m.oldOf[j] >= 0) rows.push(m.oldOf[j]);
    if (rows.length) await writeSoftDeleted(run, takeBatch(old, rows));
  }
  if (old && run.carry.length) input = carryForward(run, input, old, m.oldOf, keep);
  await run.w.write(input);
  return true;
}

/** A partition's delete keys on their own pass: their live rows named for position deletes (and rewritten when soft). */
async function deleteKeys(run: MergeRun, pk: string, partition: Record<string, unknown>, dels: arrow.RecordBatch, dprobe: KeyProbe): Promise<void> {
  const { candidates, deletes } = partitionFiles(run, pk, () => keyRanges(run.t, dels, run.matchCols), () => run.matchCols.map((c) => dels.data.children[c]));
  const all = run.target.fields.map((_, c) => c);
  const dm = await matchKeys(run.t, candidates, deletes, run.matchCols, dprobe, dels.numRows, run.soft ? all : [], { knownKeys: run.opts.knownKeys });
  const n = addHits(run, dm.hits);
  run.deleted += n;
  if (n) run.deletedByPartition.push({ partition, rows: n });
  if (run.soft && dm.old && dm.old.numRows) await writeSoftDeleted(run, dm.old);
}

/** `returnPrevious`: each updated row's keys and requested columns as the table held them. */
function collectPrevious(run: MergeRun, old: arrow.RecordBatch, keep: number[]): void {
  const cols = [...run.keyCols, ...run.prevCols];
  const vecs = cols.map((c) => arrow.makeVector(old.data.children[keep.indexOf(c)]));
  const names = cols.map((c) => run.schema.fields[c].name);
  for (let i = 0; i < old.numRows; i++) run.previous.push(Object.fromEntries(names.map((n, j) => [n, vecs[j].get(i)])));
}

/** A partition's upserts on their own pass: replaced rows named for position deletes, the input written (with carried columns). */
async function upsert(run: MergeRun, pk: string, input0: arrow.RecordBatch): Promise<void> {
  const { t, opts } = run;
  let input = input0;
  let probe = probeKeys(run, input);
  if (probe.size !== input.numRows) {
    if (opts.duplicateKeys === 'error') {
      throw new AppError('validation', `lake: merge into ${t.ident}: ${input.numRows - probe.size} incoming row(s) share their key (${opts.keys.join(', ')}) with another incoming row; nothing was written`, { field: 'keys' });
    }
    input = lastRowPerKey(run, input, probe);
    probe = probeKeys(run, input);
  }
  // computed up front (not only when the partition has files): a key column keyRanges refuses fails here as before
  const ranges = keyRanges(t, input, run.matchCols);
  const { candidates, deletes } = partitionFiles(run, pk, () => ranges, () => run.matchCols.map((c) => input.data.children[c]));
  const keep = [...new Set([...run.carry, ...run.prevCols, ...(run.prevCols.length ? run.keyCols : [])])];
  const m = await matchKeys(t, candidates, deletes, run.matchCols, probe, input.numRows, keep, { knownKeys: opts.knownKeys });
  addHits(run, m.hits);
  run.updated += m.matched; run.inserted += probe.size - m.matched;
  if (m.old) {
    if (run.prevCols.length) collectPrevious(run, m.old, keep);
    if (run.carry.length) input = carryForward(run, input, m.old, m.oldOf, keep);
  }
  await run.w.write(input);
}

/**
 * A partition's upserts when nothing rewrites the incoming rows (no carried column, no delete key):
 * only the key columns are joined across the input's batches, for the probe and the file pruning,
 * and the batches go to the writer as they came — joining every column of a large upsert copied
 * all of its rows once more. False (nothing done) when a key repeats in the input: `upsert`
 * handles that on the joined rows.
 */
async function plainUpsert(run: MergeRun, pk: string, batches: arrow.RecordBatch[]): Promise<boolean> {
  const { keys, n } = incomingKeys(run, batches);
  const probe = keyProbe(keys, run.types, n);
  if (probe.size !== n) return false;
  const ranges = keyColumnRanges(run.t, run.matchCols, keys);
  const { candidates, deletes } = partitionFiles(run, pk, () => ranges, () => keys);
  const keep = [...new Set([...run.prevCols, ...(run.prevCols.length ? run.keyCols : [])])];
  const m = await matchKeys(run.t, candidates, deletes, run.matchCols, probe, n, keep, { knownKeys: run.opts.knownKeys });
  addHits(run, m.hits);
  run.updated += m.matched; run.inserted += n - m.matched;
  if (m.old && run.prevCols.length) collectPrevious(run, m.old, keep);
  for (const b of batches) await run.w.write(b);
  return true;
}

/**
 * One partition's changes. Incoming rows whose key is also deleted are dropped first; upserts and
 * deletes then go in one pass over the partition's files when they can (not with `returnPrevious`,
 * which the one-pass road does not collect), else deletes then upserts each in their own pass.
 */
async function mergePartition(run: MergeRun, pk: string, p: Part, del: DelPart | undefined): Promise<void> {
  const { target } = run;
  if (!del && !run.carry.length && p.batches.length > 1 && await plainUpsert(run, pk, p.batches)) return;
  let input = p.batches.length ? concatBatches(target, p.batches) : makeBatch(target, target.fields.map((f) => nullData(f.type, 0)) as never, 0);
  const dprobe = del ? probeKeys(run, del.batch) : null;
  if (del && input.numRows) input = dropDeletedKeys(run, input, dprobe!);
  if (del && input.numRows && !run.prevCols.length) {
    if (await upsertAndDelete(run, pk, p.partition, input, del.batch)) return;
  }
  if (del) await deleteKeys(run, pk, p.partition, del.batch, dprobe!);
  if (input.numRows) await upsert(run, pk, input);
}

/** The key columns of a partition's incoming rows, joined across its batches. */
function incomingKeys(run: MergeRun, batches: arrow.RecordBatch[]): { keys: arrow.Data[]; n: number } {
  const n = batches.reduce((a, b) => a + b.numRows, 0);
  return { keys: run.matchCols.map((c) => concatData(batches.map((b) => b.data.children[c]), n)), n };
}

/**
 * `lateDeleteKeys`, once they arrive — every partition's upserts are matched and written by then,
 * which is the point: the merge's work overlaps the source's key comparison. A key also incoming
 * is skipped (its incoming row is written and stands); the others' live rows are named for
 * position deletes (or soft-deleted) as `deleteKeys`' are. Returns the partitions it touched.
 */
async function applyLateDeletes(run: MergeRun, parts: Map<string, Part>, late: LateDeleteKeys): Promise<string[]> {
  const byRows = !run.soft && late.at ? deleteRowsAt(run, parts, late.at) : null;
  if (byRows) return byRows;
  const delParts = deletesByPartition(run.t, late.keys, run.keyCols);
  for (const [pk, d] of delParts) {
    let dels = d.batch;
    const p = parts.get(pk);
    if (p?.batches.length) {
      const { keys: inKeys, n } = incomingKeys(run, p.batches);
      const find = keyProbe(inKeys, run.types, n).bind(run.matchCols.map((c) => dels.data.children[c]));
      const rest: number[] = [];
      for (let i = 0; i < dels.numRows; i++) if (find(i) < 0) rest.push(i);
      if (rest.length < dels.numRows) dels = takeBatch(dels, rest);
    }
    if (dels.numRows) await deleteKeys(run, pk, d.partition, dels, probeKeys(run, dels));
  }
  return [...delParts.keys()];
}

/**
 * Late deletes given as rows (`at`): named for position deletes with no file read, when they were
 * read at the merge's base snapshot and name its live data files — null otherwise (the caller
 * matches the keys). A row an upsert of this merge replaced already is skipped: its key is
 * incoming, and the incoming row stands.
 */
function deleteRowsAt(run: MergeRun, parts: Map<string, Part>, at: NonNullable<LateDeleteKeys['at']>): string[] | null {
  if (at.snapshotId !== String(run.meta['current-snapshot-id'])) return null;
  const live = new Map(run.planned.data.map((d) => [d.entry.data_file.file_path, d]));
  if (!at.rows.every((r) => live.has(r.path))) return null;
  const replaced = new Map<string, Set<number>>();
  const hits: Hits = new Map();
  const deleted = new Map<string, { partition: Record<string, unknown>; rows: number }>();
  for (const { path, pos } of at.rows) {
    let seen = replaced.get(path);
    if (!seen) replaced.set(path, (seen = new Set(run.allHits.get(path)?.positions)));
    if (seen.has(pos)) continue;
    seen.add(pos);
    const pf = live.get(path)!;
    let h = hits.get(path);
    if (!h) hits.set(path, (h = { pf, positions: [] }));
    h.positions.push(pos);
    let d = deleted.get(pf.partKey);
    if (!d) deleted.set(pf.partKey, (d = { partition: parts.get(pf.partKey)?.partition ?? pf.entry.data_file.partition, rows: 0 }));
    d.rows++;
  }
  addHits(run, hits);
  for (const d of deleted.values()) { run.deleted += d.rows; run.deletedByPartition.push(d); }
  return [...deleted.keys()];
}

/**
 * A merge of at most this many incoming rows works on two partitions at once: while one waits
 * for its candidate files (decoded by an encoder worker, or fetched from an object store), the
 * other's keys are probed — a small change's merge is mostly that reading (the lake bench's 1%
 * merge, alternated with the code before: 0.68–1.09 s against 0.86–1.51 s, faster in four runs
 * of six, equal in two). A larger one is mostly encoding its rows, which a second partition only
 * holds up, with its rows buffered beside the first's (the 1M-row upsert peaked at up to 758 MiB
 * against 736 and was no faster).
 */
const TWO_PARTITIONS_MAX_ROWS = 250_000;

/**
 * `fn` over `items`, `lanes` at a time. After a failure nothing more starts, and what is under way
 * finishes before the failure is thrown (so the files it writes are known when the merge's files
 * are deleted).
 */
async function inLanes<T>(items: T[], lanes: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | null = null;
  const lane = async () => {
    while (!failure && next < items.length) {
      const item = items[next++];
      try { await fn(item); } catch (error) { failure ??= { error }; }
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
  if (failure) throw (failure as { error: unknown }).error;
}

export async function merge(t: TableHandle, batches: Batches, opts: MergeOptions): Promise<MergeResult> {
  // awaited below, after the upserts; a failure before that must not leave its rejection unhandled
  opts.lateDeleteKeys?.catch(() => {});
  const { run, parts, delParts } = await startMerge(t, batches, opts);
  const { w } = run;
  const written: string[] = [];
  return guarded(t, async () => [...(await w.settled()).map((f) => f.file_path), ...written], async () => {
    // Each partition's new rows are encoded while the next partition's files are read (not all
    // at close) — unless late soft deletes may still write rows into it (one file, not two).
    const flushEach = !(opts.lateDeleteKeys && run.soft);
    const incoming = [...parts.values()].reduce((n, p) => n + p.batches.reduce((m, b) => m + b.numRows, 0), 0);
    await inLanes([...parts], incoming <= TWO_PARTITIONS_MAX_ROWS ? 2 : 1, async ([pk, p]) => {
      await mergePartition(run, pk, p, delParts.get(pk));
      if (flushEach) await w.flushPartition(p.partition);
    });
    const touched = new Set(parts.keys());
    if (opts.lateDeleteKeys) for (const pk of await applyLateDeletes(run, parts, await opts.lateDeleteKeys)) touched.add(pk);
    const files = await w.close();
    const delFiles = await writeDeletes(t, run.allHits, (path) => written.push(path));
    const { inserted, updated, deleted, deletedByPartition, previous } = run;
    const base = { inserted, updated, deleted, deletedByPartition, ...(opts.returnPrevious ? { previous } : {}) };
    if (!files.length && !delFiles.length) return { ...noop(t.metadataLocation()), ...base };
    const r = await commitChange(t, { operation: 'overwrite', added: [...files, ...delFiles], removed: [], touched, summary: run.opts.summary });
    return { ...r, ...base };
  });
}
