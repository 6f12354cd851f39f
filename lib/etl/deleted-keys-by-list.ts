import { AppError } from '../errors';
import type { IntKeySource, KeyGrid } from './detect-int-keys';

/**
 * Deleted keys of a table with a single integer key on a PostgreSQL source:
 * the source sends its keys themselves, packed, and the set difference is
 * taken here — exact, with no digest and no second query.
 *
 * Why a key list and not per-range sums (the Oracle road, detect-int-keys.ts):
 * measured on a 200k-row table (bench/etl.ts `deletes`), the grouped aggregate
 * costs the server ~58 ms of CPU a table (the hash aggregate alone ~30 ms), and
 * the lake side's sums, the settling of differing ranges and the anti-join
 * probe for the rest as much again here. One ungrouped aggregate that packs the
 * keys — `string_agg(int8send(key))`, 8 bytes a key — costs the server ~31 ms
 * and this side a pass over a bitmap. The bytes come raw through binary COPY
 * (the source's `bytesQuery`): as base64 text the server spent ~10 ms a table
 * encoding them and this side held and decoded a 2 MB string. The price is the
 * wire: 8 bytes a key instead of a few hundred sums.
 *
 * Memory is bounded by the window, not the table: the key range is cut into
 * windows of about KEYS_PER_WINDOW lake keys, read one after another (the next
 * one's query runs while this one is compared). A table of one window is read
 * whole, with no key condition (a qual evaluated on every row cost the server
 * ~9 ms a 200k-row table; keys outside the lake's range, new rows, are skipped
 * here); several windows are each a BETWEEN on the key.
 */
/** Lake keys a window holds (8 MB of packed keys). */
export const KEYS_PER_WINDOW = 1_000_000;
/** Largest key span compared through a bitmap (16 MiB); a sparser window is compared by sorting. */
const MAX_BITMAP_SPAN = 2 ** 27;

export interface ListedDeletes {
  keys: number[];
  /** Source keys within the lake's key range. */
  sourceKeys: number;
  /** Live lake keys compared (with repeats). */
  lakeKeys: number;
  /** Windows read (one query each). */
  windows: number;
}

/** The windows over [min, max] for `rows` keys: [lo, hi] pairs, inclusive. */
export function keyWindows(min: number, max: number, rows: number, perWindow = KEYS_PER_WINDOW): [number, number][] {
  const n = Math.max(1, Math.ceil(rows / perWindow));
  const span = Math.ceil((max - min + 1) / n);
  const out: [number, number][] = [];
  for (let lo = min; lo <= max; lo += span) out.push([lo, Math.min(max, lo + span - 1)]);
  return out;
}

/** The query packing the source's keys of one window (NULL when it has none); `whole`: the table's keys, no condition. */
export function keyListSql(src: Pick<IntKeySource, 'from' | 'key'>, lo: number, hi: number, whole = false): string {
  return `SELECT string_agg(int8send(${src.key}::int8), ''::bytea) AS k FROM ${src.from}${whole ? '' : ` WHERE ${src.key} BETWEEN ${lo} AND ${hi}`}`;
}

/** The packed keys' bytes checked whole (8 a key). */
function packed(buf: Buffer | null): Buffer {
  if (!buf) return Buffer.alloc(0);
  if (buf.length % 8) throw new AppError('fatal', `deletes: detect: the source's packed keys are ${buf.length} bytes, not a multiple of 8`);
  return buf;
}

/**
 * Packed big-endian int8 keys as numbers (exact within ±2^53: a key beyond, which no safe lake
 * key equals, comes out inexact and so still unequal to every lake key).
 */
export function unpackKeys(buf: Buffer | null): Float64Array {
  const b = packed(buf);
  const dv = new DataView(b.buffer, b.byteOffset, b.length);
  const out = new Float64Array(b.length / 8);
  for (let i = 0, o = 0; i < out.length; i++, o += 8) out[i] = dv.getInt32(o) * 4294967296 + dv.getUint32(o + 4);
  return out;
}

/**
 * Lake keys (`lake`, live, repeats allowed) the source no longer has, within
 * [min, max] of `g` (which must cover every lake key). `first` is the first
 * window's answer when the caller ran its query already (while the lake's keys
 * were read), the windows being cut from `g` alike.
 */
export async function deletedByList(src: IntKeySource & { runBytes: NonNullable<IntKeySource['runBytes']> }, lake: Float64Array, g: Pick<KeyGrid, 'min' | 'max' | 'rows'>, first: Buffer | null | undefined): Promise<ListedDeletes> {
  const wins = keyWindows(g.min, g.max, g.rows);
  const byWin = wins.length === 1 ? [lake] : splitByWindow(lake, wins);
  const fetch = (w: number) => src.runBytes(keyListSql(src, wins[w][0], wins[w][1], wins.length === 1));
  const gone: number[] = [];
  let sourceKeys = 0;
  let next = first !== undefined ? Promise.resolve(first) : fetch(0);
  for (let w = 0; w < wins.length; w++) {
    const have = packed(await next);
    if (w + 1 < wins.length) { next = fetch(w + 1); next.catch(() => {}); } // awaited next turn
    sourceKeys += missing(have, byWin[w], wins[w][0], wins[w][1], gone);
  }
  return { keys: gone, sourceKeys, lakeKeys: lake.length, windows: wins.length };
}

/** The lake keys of each window (a counting pass, then a filling pass). */
function splitByWindow(keys: Float64Array, wins: [number, number][]): Float64Array[] {
  const span = wins[0][1] - wins[0][0] + 1, min = wins[0][0];
  const counts = new Uint32Array(wins.length);
  for (let i = 0; i < keys.length; i++) counts[Math.floor((keys[i] - min) / span)]++;
  const out = Array.from(counts, (c) => new Float64Array(c));
  counts.fill(0);
  for (let i = 0; i < keys.length; i++) { const w = Math.floor((keys[i] - min) / span); out[w][counts[w]++] = keys[i]; }
  return out;
}

/**
 * Pushes onto `gone` each key of `lake` absent from `have` (packed keys), once (a key live twice
 * in the lake is named once); returns how many of the source's keys fall within [lo, hi].
 */
function missing(have: Buffer, lake: Float64Array, lo: number, hi: number, gone: number[]): number {
  const n = have.length / 8;
  const dv = new DataView(have.buffer, have.byteOffset, have.length);
  let within = 0;
  if (hi - lo + 1 <= MAX_BITMAP_SPAN) {
    // the bitmap marked straight from the bytes (no array of the source's keys)
    const bits = new Uint8Array(Math.ceil((hi - lo + 1) / 8));
    for (let i = 0, p = 0; i < n; i++, p += 8) {
      const o = dv.getInt32(p) * 4294967296 + dv.getUint32(p + 4) - lo;
      if (o < 0 || o > hi - lo) continue; // outside the lake's range (a table read whole): a new row
      bits[o >>> 3] |= 1 << (o & 7);
      within++;
    }
    for (let i = 0; i < lake.length; i++) {
      const o = lake[i] - lo;
      if (bits[o >>> 3] & (1 << (o & 7))) continue;
      gone.push(lake[i]);
      bits[o >>> 3] |= 1 << (o & 7); // named once
    }
    return within;
  }
  // sparse keys (a span too wide for a bitmap): sort the source's, search each lake key
  const keys = unpackKeys(have).sort();
  for (let i = 0; i < keys.length; i++) if (keys[i] >= lo && keys[i] <= hi) within++;
  const named = new Set<number>();
  for (let i = 0; i < lake.length; i++) {
    const k = lake[i];
    let a = 0, b = keys.length;
    while (a < b) { const m = (a + b) >>> 1; if (keys[m] < k) a = m + 1; else b = m; }
    if ((a < keys.length && keys[a] === k) || named.has(k)) continue;
    named.add(k);
    gone.push(k);
  }
  return within;
}
