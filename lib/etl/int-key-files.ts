import type * as arrow from 'apache-arrow';
import { addPositions, type DataFileInfo } from '../lake';
import { Lru } from '../cache/lru';

/**
 * The live values of one integer key column in one partition, per file and
 * cached by file: `deletes: detect`'s lake side for a single integer key.
 *
 * Why not the table scan: the scan hands back batches with the position
 * deletes applied, and in a partition an INCREMENTAL merges into, every run
 * adds a position-delete file naming rows of the big INITIAL file. The scan
 * re-reads every delete file of the partition (they are not cached), then
 * filters and copies each cached key batch through a Set of positions: with
 * the key files cached, that was most of the comparison's main-thread time
 * (bench/etl.ts --profile-deletes). Here both kinds of file are immutable
 * cache entries — a data file's key column as numbers aligned to its row
 * positions, a delete file's positions by data file — so a run reads only the
 * files written since the last one (the last merge's few new rows and its
 * delete file) and the rest is one pass over typed arrays.
 *
 * Exactness is the scan's: a row is live when no position-delete file of the
 * snapshot names (its data file, its position). Paths are unique (a merge
 * writes new files), so a delete file only ever names rows of files older than
 * itself, and the sequence-number rule of the spec needs no check here. A
 * partition with equality deletes, a file without the column or a key beyond
 * ±2^53 gives null: the caller takes the scan road.
 */
export interface IntKeyFiles {
  /** The snapshot's live data and delete files of the partition. */
  files: DataFileInfo[];
  /** The key column of a data file, chunk by chunk (nothing when the file lacks it). */
  readKeys(path: string): AsyncIterable<arrow.Data>;
  /** A position-delete file's rows (`file_path`, `pos`). */
  readPositions(path: string): AsyncIterable<arrow.RecordBatch>;
}

/** A data file's key column at its row positions (NaN: null). */
interface FileKeys { keys: Float64Array }
type Entry = FileKeys | Map<string, Float64Array>;

/** The partition's live keys (a key live in two rows appears twice). */
export interface LiveIntKeys {
  keys: Float64Array;
  /** The live rows (data file, position) holding any of `keys` — where a merge deletes them without reading a file. (Absent: not known) */
  rowsOf?(keys: ArrayLike<number>): { path: string; pos: number }[];
  /** The snapshot these keys and rows were read at. */
  snapshotId?: string;
}

/**
 * The process's cache of key arrays and delete positions, keyed by file path
 * (and, for key arrays, the column): entries are never stale since files are
 * immutable; least recently used dropped past the byte budget.
 */
export class IntKeyFileCache {
  private readonly lru: Lru<string, Entry>;
  /** @param budget bytes kept (8 a key, 8 a deleted position: 128 MiB hold ~16 million keys). (Default: 128 MiB) */
  constructor(readonly budget = 128 * 1024 * 1024) {
    this.lru = new Lru({ maxBytes: budget, sizeOf: entryBytes });
  }

  get(key: string): Entry | undefined { return this.lru.get(key); }

  /** A data file's `column` at its row positions (NaN: null), when held: what a merge matches its incoming keys on without opening the file (MergeOptions.knownKeys). */
  keysOf(column: string, path: string): Float64Array | undefined {
    return (this.lru.get(keysEntry(column, path)) as FileKeys | undefined)?.keys;
  }
  set(key: string, value: Entry): void { this.lru.set(key, value); }

  /** Bytes held. */
  get size(): number { return this.lru.bytes; }
}

/** The cache key of a data file's key column. */
const keysEntry = (column: string, path: string) => `keys\u0000${column}\u0000${path}`;

const entryBytes = (value: Entry) =>
  value instanceof Map ? [...value.values()].reduce((n, a) => n + a.byteLength + 100, 0) : value.keys.byteLength;

/** The process's cache for `deletes: detect` on integer keys (entries are valid across runs and tables). */
export const intKeyFileCache = new IntKeyFileCache();

/** The live keys of the partition as numbers (nulls skipped); null when this road cannot answer exactly. */
export async function liveIntKeys(src: IntKeyFiles, column: string, cache: IntKeyFileCache): Promise<LiveIntKeys | null> {
  if (src.files.some((f) => f.content === 'equality-deletes')) return null;
  const data = src.files.filter((f) => f.content === 'data');
  // deleted positions by data file, from every delete file of the partition (read once per process)
  const dead = new Map<string, Float64Array[]>();
  for (const f of src.files) {
    if (f.content !== 'position-deletes') continue;
    let m = cache.get(`pos\u0000${f.path}`) as Map<string, Float64Array> | undefined;
    if (!m) { m = await positionsOf(src.readPositions(f.path)); cache.set(`pos\u0000${f.path}`, m); }
    for (const [p, list] of m) { let l = dead.get(p); if (!l) dead.set(p, (l = [])); l.push(list); }
  }
  const perFile: (FileKeys & { path: string; gone: Float64Array[] | undefined; mask?: Uint8Array | null })[] = [];
  let total = 0;
  for (const f of data) {
    const ck = keysEntry(column, f.path);
    let fk = cache.get(ck) as FileKeys | undefined;
    if (!fk) {
      const keys = await keysOf(src.readKeys(f.path), f.recordCount);
      if (!keys) return null;
      cache.set(ck, (fk = { keys }));
    }
    perFile.push({ ...fk, path: f.path, gone: dead.get(f.path) });
    total += fk.keys.length;
  }
  const out = new Float64Array(total);
  let n = 0;
  for (const pf of perFile) {
    const { keys, gone } = pf;
    let mask: Uint8Array | null = null;
    if (gone) {
      mask = new Uint8Array(keys.length);
      for (const list of gone) for (let i = 0; i < list.length; i++) { const p = list[i]; if (p < keys.length) mask[p] = 1; }
    }
    pf.mask = mask;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i];
      if (k !== k || (mask && mask[i])) continue; // NaN: a null key
      out[n++] = k;
    }
  }
  const rowsOf = (want: ArrayLike<number>) => {
    const rows: { path: string; pos: number }[] = [];
    const has = memberOf(want);
    if (!has) return rows;
    for (const { path, keys, mask } of perFile) {
      for (let i = 0; i < keys.length; i++) if (has(keys[i]) && !(mask && mask[i])) rows.push({ path, pos: i });
    }
    return rows;
  };
  return { keys: out.subarray(0, n), rowsOf };
}

/** Membership in `keys` (null when empty): a bitmap over their span when it is small (a lookup per lake key), else a Set. */
function memberOf(keys: ArrayLike<number>): ((k: number) => boolean) | null {
  if (!keys.length) return null;
  let lo = Infinity, hi = -Infinity;
  for (let i = 0; i < keys.length; i++) { const k = keys[i]; if (k < lo) lo = k; if (k > hi) hi = k; }
  if (hi - lo >= 2 ** 27) { const set = new Set(Array.from(keys)); return (k) => set.has(k); }
  const bits = new Uint8Array(Math.floor((hi - lo) / 8) + 1);
  for (let i = 0; i < keys.length; i++) { const o = keys[i] - lo; bits[o >>> 3] |= 1 << (o & 7); }
  return (k) => { const o = k - lo; return o >= 0 && o <= hi - lo && (bits[o >>> 3] & (1 << (o & 7))) !== 0; };
}

/** A data file's key column as numbers at their row positions (NaN for null); null when the file lacks it or a key is not exact as a number. */
async function keysOf(chunks: AsyncIterable<arrow.Data>, rows: number): Promise<Float64Array | null> {
  let out = new Float64Array(rows);
  let n = 0;
  for await (const d of chunks) {
    const vals = d.values as Int32Array | BigInt64Array | Int16Array | Int8Array;
    if (n + d.length > out.length) { const g = new Float64Array(Math.max(out.length * 2, n + d.length)); g.set(out.subarray(0, n)); out = g; }
    const bm = d.nullCount ? d.nullBitmap : null;
    // an int64 as its two 32-bit halves (little-endian): BigInt → Number a row costs several times more
    const w = vals instanceof BigInt64Array ? new Int32Array(vals.buffer, vals.byteOffset, vals.length * 2) : null;
    for (let i = 0; i < d.length; i++) {
      const j = d.offset + i; // the validity bitmap counts from the Data's offset; arrow-js pre-slices `values` (row i is values[i])
      if (bm && (bm[j >> 3] & (1 << (j & 7))) === 0) { out[n++] = NaN; continue; }
      if (w) {
        const hi = w[2 * i + 1];
        if (hi > 0x1fffff || hi < -0x200000) return null;
        const k = hi * 4294967296 + (w[2 * i] >>> 0);
        if (!Number.isSafeInteger(k)) return null;
        out[n++] = k;
      } else out[n++] = vals[i] as number;
    }
  }
  // fewer values than the manifest's record count: the column is missing (or a file is short), positions would not align
  return n === rows ? out.subarray(0, n) : null;
}

/** A position-delete file as deleted positions by data file path. */
async function positionsOf(batches: AsyncIterable<arrow.RecordBatch>): Promise<Map<string, Float64Array>> {
  const lists = new Map<string, number[]>();
  for await (const b of batches) addPositions(b, lists);
  return new Map([...lists].map(([p, l]) => [p, Float64Array.from(l)]));
}
