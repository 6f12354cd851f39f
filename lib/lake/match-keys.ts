/**
 * The row-level part merge and delete share: finding the live rows whose key
 * is among a set of keys, and naming them in position-delete files.
 */
import * as arrow from 'apache-arrow';
import { concatBatches, makeBatch, takeData } from './arrow-util';
import { columnStats, decodeBound } from './bounds';
import type { KeyProbe } from './key-probe';
import type { DataFileRec } from './manifest';
import { codecOf } from './parquet';
import { deleteIndex, readDataFile, rowKey, specById, visitDataFile, type PlannedFile } from './scan';
import { arrowSchemaOf, primitiveOf } from './schema';
import type { TableHandle } from './table-context';
import type { ColumnRange, IcebergSchema } from './types';
import { partitionPath, writePositionDeletes } from './writer';

export type Hits = Map<string, { pf: PlannedFile; positions: number[] }>;

/**
 * Live rows of the candidate files whose key is among the incoming rows':
 * their positions by file (for position deletes) and, for the `keep`
 * columns, the matched rows' values. Only the key, `keep` and equality-delete
 * columns are read (a lazily read file fetches just those column chunks), and
 * each row costs one probe of `probe` — nothing is allocated per row. A
 * file whose key column the caller holds (`o.knownKeys`) and whose kept
 * columns are constant is not opened at all.
 * `oldOf[j]` is the row of `old` holding incoming row j's previous values,
 * or -1 when its key is new.
 */
export async function matchKeys(t: TableHandle, candidates: PlannedFile[], deletes: PlannedFile[], matchCols: number[], probe: KeyProbe, inputRows: number, keep: number[], o: MatchOptions = {}): Promise<{
  hits: Hits; old: arrow.RecordBatch | null; oldOf: Int32Array; matched: number;
  /** Hit rows matched by incoming rows at or after `splitAt` (a merge's delete keys, probed in the same pass as its upserts). */
  hitsFrom: number;
}> {
  const splitAt = o.splitAt ?? inputRows;
  const schema = t.schema();
  const view = t.view();
  const idx = deleteIndex(view, deletes);
  const hits: Hits = new Map();
  const keepSchema = arrowSchemaOf({ ...schema, fields: keep.map((c) => schema.fields[c]) });
  const oldParts: arrow.RecordBatch[] = [];
  const oldOf = new Int32Array(inputRows).fill(-1);
  let oldRows = 0, matched = 0, hitsFrom = 0;
  let pairs = new Int32Array(0);
  for (const pf of candidates) {
    const pos = await idx.positions(pf);
    const eq = await idx.equality(pf);
    // a kept column the manifest shows constant in this file (one load's insert_at, say) is not read
    const constant = keep.map((c) => (matchCols.includes(c) ? null : constantColumnValue(pf.entry.data_file, schema.fields[c])));
    /** One batch of the file: its match columns, its equality-delete columns, its kept columns (null: constant), from row `rowBase`. */
    const visit = (keyCols: arrow.Data[], eqCols: arrow.Data[][], kept: (arrow.Data | null)[], numRows: number, rowBase: number) => {
      if (pairs.length < 2 * numRows) pairs = new Int32Array(2 * numRows);
      const found = probe.scan(keyCols, numRows, pairs);
      // the hot loop of a large upsert (a pair per replaced row): rows are collected only when kept columns are read
      const take: number[] | null = keep.length ? [] : null;
      let taken = 0;
      let h: { pf: PlannedFile; positions: number[] } | undefined;
      for (let p = 0; p < found; p++) {
        const i = pairs[2 * p], j = pairs[2 * p + 1];
        if (pos?.has(rowBase + i)) continue;
        if (eq.length && eq.some((e, k) => e.keys.has(rowKey(eqCols[k], i)))) continue;
        if (!h && !(h = hits.get(pf.entry.data_file.file_path))) hits.set(pf.entry.data_file.file_path, (h = { pf, positions: [] }));
        h.positions.push(rowBase + i);
        if (j >= splitAt) hitsFrom++;
        if (oldOf[j] !== -1) continue; // the same key live twice: both rows go, the first one's values are kept
        matched++;
        oldOf[j] = oldRows + taken++;
        take?.push(i);
      }
      if (take?.length) {
        oldParts.push(makeBatch(keepSchema, kept.map((d, k) => (constant[k] ? constant[k]!(keepSchema.fields[k].type, take.length) : takeData(d!, take))), take.length));
      }
      oldRows += taken;
    };
    const known = !eq.length && constant.every((c) => c) ? knownKeyData(o.knownKeys, pf, matchCols, schema) : null;
    if (known) {
      visit([known], [], keep.map(() => null), known.length, 0);
      continue;
    }
    const ids = new Set([...matchCols, ...keep.filter((_, k) => !constant[k])].map((c) => schema.fields[c].id));
    for (const e of eq) for (const id of e.ids) ids.add(id);
    const sub: IcebergSchema = { ...schema, fields: schema.fields.filter((f) => ids.has(f.id)) };
    const at = (id: number) => sub.fields.findIndex((f) => f.id === id);
    const mc = matchCols.map((c) => at(schema.fields[c].id)), kc = keep.map((c) => at(schema.fields[c].id));
    const ec = eq.map((e) => e.ids.map(at));
    const visitBatch = (batch: arrow.RecordBatch, rowBase: number) => {
      const cols = batch.data.children;
      visit(mc.map((c) => cols[c]), ec.map((e) => e.map((c) => cols[c])), kc.map((c, k) => (constant[k] ? null : cols[c])), batch.numRows, rowBase);
    };
    // fixed-width columns (integer keys, timestamps) are probed where the reader decoded them: `visit`
    // keeps only positions and the values it takes (copies), as visitDataFile asks
    if (await visitDataFile(view, pf, sub, arrowSchemaOf(sub), ids, visitBatch)) continue;
    for await (const { batch, rowBase } of readDataFile(view, pf, sub, arrowSchemaOf(sub), ids, true)) visitBatch(batch, rowBase);
  }
  const old = keep.length && oldParts.length ? concatBatches(keepSchema, oldParts) : null;
  return { hits, old, oldOf, matched, hitsFrom };
}

export interface MatchOptions {
  /** Incoming rows from here on are delete keys (counted in `hitsFrom`). (Default: none) */
  splitAt?: number;
  /** MergeOptions.knownKeys. */
  knownKeys?: (path: string) => Float64Array | undefined;
}

/**
 * A candidate file's single integer match column from `knownKeys` as Arrow data of the column's
 * type (an int64 written as its two 32-bit words: no BigInt per row); null when the file must be
 * read instead — no entry, not one value per record, a null, or another key shape.
 */
function knownKeyData(knownKeys: MatchOptions['knownKeys'], pf: PlannedFile, matchCols: number[], schema: IcebergSchema): arrow.Data | null {
  if (!knownKeys || matchCols.length !== 1) return null;
  const type = String(schema.fields[matchCols[0]].type);
  if (type !== 'long' && type !== 'int') return null;
  const keys = knownKeys(pf.entry.data_file.file_path);
  if (!keys || keys.length !== Number(pf.entry.data_file.record_count)) return null;
  const n = keys.length;
  if (type === 'int') {
    const v = new Int32Array(n);
    for (let i = 0; i < n; i++) { const k = keys[i]; if (k !== k) return null; v[i] = k; }
    return arrow.makeData({ type: new arrow.Int32(), length: n, nullCount: 0, data: v });
  }
  const words = new Int32Array(2 * n);
  for (let i = 0; i < n; i++) {
    const k = keys[i];
    if (k !== k) return null;
    const hi = Math.floor(k / 4294967296);
    words[2 * i] = k - hi * 4294967296; words[2 * i + 1] = hi;
  }
  return arrow.makeData({ type: new arrow.Int64(), length: n, nullCount: 0, data: new BigInt64Array(words.buffer) });
}

/** The key columns' [min, max] over a batch: files whose bounds miss them are never opened. */
export function keyRanges(t: TableHandle, batch: arrow.RecordBatch, keyCols: number[]): ColumnRange[] {
  return keyColumnRanges(t, keyCols, keyCols.map((c) => batch.data.children[c]));
}

/** keyRanges over the key columns alone: `data[k]` holds the values of table column `keyCols[k]`. */
export function keyColumnRanges(t: TableHandle, keyCols: number[], data: arrow.Data[]): ColumnRange[] {
  const schema = t.schema();
  return keyCols.map((c, k) => {
    const f = schema.fields[c];
    const ft = primitiveOf(f, 'a key');
    const st = columnStats(data[k], ft);
    return { column: f.name, gte: st.min === null ? undefined : fromRaw(ft, st.min), lte: st.max === null ? undefined : fromRaw(ft, st.max) };
  });
}

/** One integer-like key column's incoming values, sorted: see `holdsAnyKey`. */
export interface SortedKeys { id: number; type: string; values: BigInt64Array | Int32Array }

const SORTABLE_64 = new Set(['long', 'time', 'timestamp', 'timestamptz', 'timestamp_ns', 'timestamptz_ns']);
const SORTABLE_32 = new Set(['int', 'date']);

/**
 * For a single integer-like key column without nulls (`data` its incoming values), those values
 * sorted; null for any other key shape, which is pruned by its [min, max] range alone.
 */
export function sortedKeys(t: TableHandle, keyCols: number[], data: arrow.Data[]): SortedKeys | null {
  if (keyCols.length !== 1 || data[0].nullCount > 0) return null;
  const f = t.schema().fields[keyCols[0]];
  const type = String(f.type);
  const d = data[0];
  // arrow-js keeps `values` offset to the Data's first element
  const v: unknown = d.values;
  if (SORTABLE_64.has(type) && v instanceof BigInt64Array) return { id: f.id, type, values: v.slice(0, d.length).sort() };
  if (SORTABLE_32.has(type) && v instanceof Int32Array) return { id: f.id, type, values: v.slice(0, d.length).sort() };
  return null;
}

/**
 * Can this data file hold one of the sorted keys — is one of them within its key column's lower
 * and upper bounds? Keys spread over a partition still leave out the files between them: a load's
 * new keys past the end and a few updated recent ones open the last file, not every file the
 * [min, max] of all keys overlaps. True when the file records no bounds.
 */
export function holdsAnyKey(pf: PlannedFile, keys: SortedKeys): boolean {
  const lb = pf.entry.data_file.lower_bounds?.find((x) => x.key === keys.id)?.value;
  const ub = pf.entry.data_file.upper_bounds?.find((x) => x.key === keys.id)?.value;
  const lo = lb ? decodeBound(keys.type, lb) : null, hi = ub ? decodeBound(keys.type, ub) : null;
  if (lo === null || hi === null) return true;
  const v = keys.values;
  // first key >= lo
  let a = 0, b = v.length;
  while (a < b) { const m = (a + b) >>> 1; if (v[m] < (lo as number)) a = m + 1; else b = m; }
  return a < v.length && v[a] <= (hi as number);
}

/**
 * One position-delete file per touched partition naming every hit row, written once the merge's
 * partitions are matched (while a merge's data files were also being encoded during the next
 * partition's match, writing them then peaked the lake bench's upsert ~100 MiB higher and was no
 * faster in one run). `wrote` hears of each file as it lands, so a failed operation deletes the
 * ones written before the failure.
 */
export async function writeDeletes(t: TableHandle, hits: Hits, wrote: (path: string) => void): Promise<DataFileRec[]> {
  const byPart = new Map<string, { partition: Record<string, unknown>; rows: { path: string; positions: BigInt64Array }[] }>();
  for (const [path, h] of hits) {
    let g = byPart.get(h.pf.partKey);
    if (!g) byPart.set(h.pf.partKey, (g = { partition: h.pf.entry.data_file.partition, rows: [] }));
    // written as the two 32-bit words of little-endian int64s: no BigInt per position
    const positions = new BigInt64Array(h.positions.length);
    const words = new Uint32Array(positions.buffer);
    for (let i = 0; i < h.positions.length; i++) { const p = h.positions[i]; words[2 * i] = p >>> 0; words[2 * i + 1] = Math.floor(p / 4294967296); }
    g.rows.push({ path, positions });
  }
  const meta = t.metadata();
  const spec = specById(meta, meta['default-spec-id']);
  const codec = codecOf(meta.properties['write.parquet.compression-codec']);
  // all at once: each file's store write (and footer read) overlaps the next one's encoding — one
  // after another, the lake bench's 1% merge spent ~60 ms here on seven small files. Every write
  // settles before a failure is thrown, so the caller hears of each file that landed.
  const settled = await Promise.allSettled([...byPart.values()].map(async (g) => {
    const rec = await writePositionDeletes(t.ctx.storage, t.location, codec, g.partition, partitionPath(spec, g.partition), g.rows);
    wrote(rec.file_path);
    return rec;
  }));
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<DataFileRec>).value);
}

/** A comparable statistic back to a value `toComparable` accepts. */
function fromRaw(type: string, v: unknown): unknown {
  if (v instanceof Uint8Array) return type === 'string' ? new TextDecoder().decode(v) : v;
  return v;
}

/**
 * When a data file's manifest entry shows a fixed-width column constant (no
 * nulls, lower bound = upper bound), a maker of that column for n rows;
 * otherwise null. Bounds are Iceberg's single-value serialisation
 * (little-endian for these types).
 */
function constantColumnValue(df: DataFileRec, field: IcebergSchema['fields'][number]): ((type: arrow.DataType, n: number) => arrow.Data) | null {
  const width = ({ int: 4, date: 4, float: 4, long: 8, double: 8, time: 8, timestamp: 8, timestamptz: 8 } as Record<string, number>)[String(field.type)];
  if (!width) return null;
  const nulls = df.null_value_counts?.find((x) => x.key === field.id)?.value;
  const lo = df.lower_bounds?.find((x) => x.key === field.id)?.value;
  const hi = df.upper_bounds?.find((x) => x.key === field.id)?.value;
  if (nulls === undefined || Number(nulls) !== 0 || !lo || !hi || lo.length !== width || !Buffer.from(lo).equals(Buffer.from(hi))) return null;
  const v = new DataView(lo.buffer, lo.byteOffset, width);
  return (type, n) => {
    let data: Int32Array | Float32Array | Float64Array | BigInt64Array;
    switch (String(field.type)) {
      case 'int': case 'date': data = new Int32Array(n).fill(v.getInt32(0, true)); break;
      case 'float': data = new Float32Array(n).fill(v.getFloat32(0, true)); break;
      case 'double': data = new Float64Array(n).fill(v.getFloat64(0, true)); break;
      default: data = new BigInt64Array(n).fill(v.getBigInt64(0, true));
    }
    return arrow.makeData({ type, length: n, nullCount: 0, data } as never);
  };
}
