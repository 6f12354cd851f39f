import type * as arrow from 'apache-arrow';
import type { LiveIntKeys } from './int-key-files';
import { deletedByList, keyListSql, keyWindows } from './deleted-keys-by-list';

/**
 * Deleted keys of a table with a single integer key. On PostgreSQL the source
 * sends its keys packed, as raw bytes (`runBytes`), and the set difference is
 * taken here (deleted-keys-by-list.ts). On Oracle, which has no cheap way to pack a key
 * list into one value, by key ranges instead of hashed buckets: the key space
 * is cut into ranges of about KEYS_PER_RANGE lake keys; the source gives, per
 * range, its key count, the sum of the keys' offsets in the range and the sum
 * of a digest of each offset, in one aggregate over the key alone (integer
 * arithmetic its primary-key index can serve without the rows: no text, no
 * MD5); the lake side computes the same from its key column. Only the ranges
 * that differ are read key by key. Keys above the lake's largest are new rows
 * and are not looked at.
 *
 * The grid comes from the manifests' key bounds and record counts, so the
 * source's query runs while the lake's key column is read (two processes, two
 * cores) instead of after it.
 *
 * Exactness of the range road: a range whose key sets are equal always
 * matches; one whose sets differ matches only if count, offset sum and digest
 * sum all agree. One key swapped for another always changes the offset sum.
 * The digest is x ↦ x² + c mod P twice (a degree-4 polynomial: a collision
 * needs an exchange of at least five keys within one range whose first four
 * power sums agree modulo P).
 */
export interface IntKeySource {
  dialect: 'postgres' | 'oracle';
  /** `FROM …` relation with the child as `t`, and the quoted key reference (`t."ID"`). */
  from: string;
  key: string;
  run(sql: string): Promise<Record<string, string | null>[]>;
  /** The first value of a query's first row as raw bytes (PostgreSQL's `bytesQuery`): the key-list road needs it. */
  runBytes?(sql: string): Promise<Buffer | null>;
}

/** Range b of the grid holds the keys min + b·width … min + (b+1)·width − 1; `rows` keys are expected in all (it cuts the key list's windows alike on both sides). */
export interface KeyGrid { min: number; max: number; width: number; rows: number }

const KEYS_PER_RANGE = 64;
/** Ranges per key query (an OR of BETWEENs, Oracle). */
const RANGES_PER_QUERY = 500;
/** The digest's modulus: a prime below 2^26, so x² (< 2^52) is exact as a JavaScript number and as int8. */
const P = 67_108_859;
const C1 = 12_345_701, C2 = 40_503_491;

/** The grid for `rows` keys between min and max (about KEYS_PER_RANGE keys a range); null when offsets are not exact as numbers. */
export function keyGrid(min: number, max: number, rows: number): KeyGrid | null {
  if (!Number.isSafeInteger(min) || !Number.isSafeInteger(max) || !Number.isSafeInteger(max - min) || max < min) return null;
  const ranges = Math.max(1, Math.ceil(Math.max(1, rows) / KEYS_PER_RANGE));
  return { min, max, width: Math.max(1, Math.ceil((max - min + 1) / ranges)), rows: Math.max(1, rows) };
}

/** The live lake keys of one partition as numbers (null keys skipped); null when one is beyond ±2^53 (not exact as a number). */
export async function lakeIntKeys(batches: AsyncIterable<arrow.RecordBatch>, key: string, live: ((b: arrow.RecordBatch) => (i: number) => boolean) | null): Promise<Float64Array | null> {
  let out = new Float64Array(1024);
  let n = 0;
  for await (const b of batches) {
    const d = b.getChild(key)!.data[0];
    const keep = live?.(b) ?? null;
    const vals = d.values as Int32Array | BigInt64Array | Int16Array | Int8Array;
    const bm = d.nullCount ? d.nullBitmap : null;
    if (n + b.numRows > out.length) { const g = new Float64Array(Math.max(out.length * 2, n + b.numRows)); g.set(out.subarray(0, n)); out = g; }
    // an int64 as its two 32-bit halves (little-endian): BigInt → Number a row costs several times more;
    // a key beyond ±2^53 comes out inexact, and is caught below by its high half
    const w = vals instanceof BigInt64Array ? new Int32Array(vals.buffer, vals.byteOffset, vals.length * 2) : null;
    let unsafe = false;
    for (let i = 0; i < b.numRows; i++) {
      const j = d.offset + i; // the validity bitmap counts from the Data's offset; arrow-js pre-slices `values` (row i is values[i])
      if (bm && (bm[j >> 3] & (1 << (j & 7))) === 0) continue;
      if (keep && !keep(i)) continue;
      if (w) {
        const hi = w[2 * i + 1];
        if (hi > 0x1fffff || hi < -0x200000) unsafe = true;
        out[n++] = hi * 4294967296 + (w[2 * i] >>> 0);
      } else out[n++] = vals[i] as number;
    }
    if (unsafe) return null;
  }
  const keys = out.subarray(0, n);
  for (let i = 0; i < n; i++) if (!Number.isSafeInteger(keys[i])) return null;
  return keys;
}

/** The lake's live keys as numbers, or as int-key-files.ts assembles them from its per-file cache. */
export type LakeKeys = Float64Array | LiveIntKeys;

/** The lake side per range: count, offset sum and digest sum. */
function rangeSums(keys: Float64Array, g: KeyGrid, ranges: number) {
  const n = new Float64Array(ranges), s = new Float64Array(ranges), h = new Float64Array(ranges);
  for (let i = 0; i < keys.length; i++) {
    const o = keys[i] - g.min;
    const b = Math.floor(o / g.width);
    n[b]++; s[b] += o - b * g.width; h[b] += polyDigest(o);
  }
  return { n, s, h };
}

/** The ranges' digest (Oracle has no hash function JavaScript can reproduce): x ↦ x² + c mod P, twice, of the offset. */
function polyDigest(o: number): number {
  const x1 = o % P;
  const x2 = (x1 * x1 + C1) % P;
  return (x2 * x2 + C2) % P;
}

/** The source's aggregate over the grid: per range, count, offset sum and digest sum (Oracle SQL, which PostgreSQL also runs). */
export function aggregateSql(src: Pick<IntKeySource, 'from' | 'key'>, g: KeyGrid): string {
  const { from, key } = src;
  const o = `(${key} - (${g.min}))`;
  const x1 = `MOD(${o}, ${P})`;
  const x2 = `MOD(${x1} * ${x1} + ${C1}, ${P})`;
  return `SELECT FLOOR(${o} / ${g.width}) AS b, COUNT(*) AS n, SUM(MOD(${o}, ${g.width})) AS s, SUM(MOD(${x2} * ${x2} + ${C2}, ${P})) AS h `
    + `FROM ${from} WHERE ${key} BETWEEN ${g.min} AND ${g.max} GROUP BY FLOOR(${o} / ${g.width})`;
}

export interface DeletedIntKeys {
  keys: number[];
  /** Source keys within the lake's key range. */
  sourceKeys: number;
  /** Live lake keys compared (with repeats). */
  lakeKeys: number;
  /** Ranges that differed (the range road; 0 on the key-list road). */
  differing: number;
  /** Lake keys of differing ranges the sums could not settle, checked against the source key by key (the range road). */
  probed: number;
  /** Windows of packed keys read (the key-list road). */
  windows?: number;
  /** Milliseconds until the lake's keys were read and until the source's aggregate came back (both start at once). */
  timing?: { lakeMs: number; sourceMs: number };
}

/**
 * Keys of the lake that the source no longer has. `grid` (from the manifests) lets the
 * source's first query start before the lake's keys are read; without it, or when a lake key
 * falls outside it, the grid is cut from the keys. Null when `lake` resolves to null (keys
 * not exact as numbers: the caller takes the hashed road).
 */
export async function deletedIntKeys(src: IntKeySource, lake: LakeKeys | null | Promise<LakeKeys | null>, grid: KeyGrid | null = null): Promise<DeletedIntKeys | null> {
  const t0 = Date.now();
  const timing = { lakeMs: 0, sourceMs: 0 };
  // PostgreSQL: the key list (deleted-keys-by-list.ts), its first window's query started here; Oracle: the range sums
  const runBytes = src.dialect === 'postgres' ? src.runBytes : undefined;
  const firstList = (g: KeyGrid) => { const w = keyWindows(g.min, g.max, g.rows); return runBytes!(keyListSql(src, w[0][0], w[0][1], w.length === 1)); };
  const early = !grid ? null : (runBytes ? firstList(grid) : src.run(aggregateSql(src, grid))).then((x) => { timing.sourceMs = Date.now() - t0; return x; });
  let held: LakeKeys | null;
  let first: Record<string, string | null>[] | Buffer | null;
  try {
    [held, first] = await Promise.all([Promise.resolve(lake).then((x) => { timing.lakeMs = Date.now() - t0; return x; }), early]);
  } catch (e) {
    early?.catch(() => {}); // the other side's failure is the one reported
    throw e;
  }
  if (!held) return null;
  const keys = held instanceof Float64Array ? held : held.keys;
  if (!keys.length) return { keys: [], sourceKeys: 0, lakeKeys: 0, differing: 0, probed: 0 };
  let min = Infinity, max = -Infinity;
  for (let i = 0; i < keys.length; i++) { const k = keys[i]; if (k < min) min = k; if (k > max) max = k; }
  let fromGrid = true;
  if (!grid || min < grid.min || max > grid.max) {
    grid = keyGrid(min, max, keys.length);
    if (!grid) return null;
    fromGrid = false;
  }
  if (runBytes) {
    const r = await deletedByList({ ...src, runBytes }, keys, grid, fromGrid ? first as Buffer | null : undefined);
    return { keys: r.keys, sourceKeys: r.sourceKeys, lakeKeys: r.lakeKeys, differing: 0, probed: 0, windows: r.windows, timing };
  }
  const rows = fromGrid ? first as Record<string, string | null>[] : await src.run(aggregateSql(src, grid));
  const g = grid;
  const ranges = Math.floor((g.max - g.min) / g.width) + 1;
  // lake side: count, offset sum and digest sum per range (exact: each stays below 2^53, checked below)
  const { n, s, h } = rangeSums(keys, g, ranges);
  // 0: same; 1: differs, read key by key; 2: the source has no key there (every lake key of it is gone);
  // 3: exactly one lake key is missing and the sums name it (cand), settled without reading the source's keys
  const state = new Uint8Array(ranges);
  const cand = new Float64Array(ranges);
  const seen = new Uint8Array(ranges);
  let sourceKeys = 0;
  const num = (v: string | null | undefined) => { const x = v === null || v === undefined ? NaN : Number(v); return Number.isSafeInteger(x) ? x : NaN; };
  for (const r of rows!) {
    const b = Number(r.b ?? r.B), cnt = Number(r.n ?? r.N), rs = num(r.s ?? r.S), rh = num(r.h ?? r.H);
    sourceKeys += cnt;
    seen[b] = 1;
    if (n[b] === cnt && s[b] === rs && h[b] === rh) continue;
    state[b] = 1;
    // One key fewer in the lake's range than in the source's, and the differences of the offset sum
    // and of the digest sum are one lake key's: that key is the delete (the common case, deletes being
    // scattered). Anything else (an insert beside it, several deletes) is read key by key.
    if (n[b] === cnt + 1 && Number.isSafeInteger(s[b]) && Number.isSafeInteger(h[b]) && !Number.isNaN(rs) && !Number.isNaN(rh)) {
      const d = s[b] - rs;
      if (d >= 0 && d < g.width && polyDigest(b * g.width + d) === h[b] - rh) { state[b] = 3; cand[b] = g.min + b * g.width + d; }
    }
  }
  let differing = 0;
  for (let b = 0; b < ranges; b++) {
    if (!seen[b] && n[b] > 0) state[b] = 2;
    if (state[b]) differing++;
  }
  if (!differing) return { keys: [], sourceKeys, lakeKeys: keys.length, differing, probed: 0, timing };
  // the lake keys of the differing ranges: a named key must be live in the lake exactly once (a key held
  // twice with one copy in the source would also leave one key over); suspects are read key by key
  const occ = new Uint32Array(ranges);
  const suspects = new Set<number>();
  const goneAll = new Set<number>();
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    const b = Math.floor((k - g.min) / g.width);
    const st = state[b];
    if (st === 0) continue;
    if (st === 2) goneAll.add(k);
    else if (st === 3) { if (k === cand[b]) occ[b]++; } else suspects.add(k);
  }
  const gone: number[] = [...goneAll];
  if (suspects.size || occ.some((c, b) => state[b] === 3 && c !== 1)) {
    for (let i = 0; i < keys.length; i++) {
      const b = Math.floor((keys[i] - g.min) / g.width);
      if (state[b] === 3 && occ[b] !== 1) suspects.add(keys[i]);
    }
  }
  for (let b = 0; b < ranges; b++) if (state[b] === 3 && occ[b] === 1) gone.push(cand[b]);
  const differs = (b: number) => state[b] === 1 || (state[b] === 3 && occ[b] !== 1);
  const { from, key } = src;
  if (suspects.size) {
    // no array bind through Oracle's text query: the source's keys of the ranges come back and are diffed here
    const list: number[] = [];
    for (let b = 0; b < ranges; b++) if (differs(b)) list.push(b);
    for (let i = 0; i < list.length; i += RANGES_PER_QUERY) {
      const part = list.slice(i, i + RANGES_PER_QUERY);
      const preds = part.map((b) => `${key} BETWEEN ${g.min + b * g.width} AND ${g.min + (b + 1) * g.width - 1}`);
      const have = new Set((await src.run(`SELECT ${key} AS k FROM ${from} WHERE ${preds.join(' OR ')}`)).map((r) => Number(r.k ?? r.K)));
      const lo = g.min + part[0] * g.width, hi = g.min + (part[part.length - 1] + 1) * g.width - 1;
      for (const k of suspects) if (k >= lo && k <= hi && !have.has(k)) gone.push(k);
    }
  }
  return { keys: gone, sourceKeys, lakeKeys: keys.length, differing, probed: suspects.size, timing };
}
