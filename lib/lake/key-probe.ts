import { isValidAt, type AnyData } from './arrow-util';
import { rowKey } from './scan';

/**
 * "Which incoming row has this key?" for a merge: built once from the
 * incoming rows' key columns, then asked once per row of every candidate data
 * file — so it must be cheap per row and allocate nothing.
 *
 * One integer-like key column (int, date, long, timestamp…, the common case
 * for unique keys) is probed through an open-addressing hash table over the
 * raw 32-bit words of the values: no string, BigInt or boxed number per row.
 * Any other key shape falls back to a Map on the string form of the row key.
 */
export interface KeyProbe {
  /** Distinct incoming keys. */
  readonly size: number;
  /** For one batch's key columns: row `i` → index of the incoming row with the same key, or -1. */
  bind(cols: AnyData[]): (i: number) => number;
  /**
   * Every row of a batch whose key is an incoming one: writes (row, incoming
   * index) pairs into `out` (2 × rows long) and returns how many pairs.
   */
  scan(cols: AnyData[], rows: number, out: Int32Array): number;
}

const INT32_TYPES = new Set(['int', 'date']);
const INT64_TYPES = new Set(['long', 'time', 'timestamp', 'timestamptz', 'timestamp_ns', 'timestamptz_ns']);

/** Words of a fixed-width integer column as an Int32Array (2 per value for 64-bit), sharing its buffer. */
function words(d: AnyData): Int32Array {
  // arrow-js keeps `values` already offset to the Data's first element
  const v = d.values as unknown as ArrayBufferView;
  return new Int32Array(v.buffer, v.byteOffset, v.byteLength >> 2);
}

function hash(lo: number, hi: number): number {
  let h = Math.imul(lo ^ Math.imul(hi, 0x27d4eb2d), 0x9e3779b1);
  h ^= h >>> 15;
  return Math.imul(h, 0x85ebca6b) ^ (h >>> 13);
}

/**
 * `cols`: the incoming key columns (already de-duplicated: one row per key).
 * `types`: their Iceberg type names.
 */
export function keyProbe(cols: AnyData[], types: string[], rows: number): KeyProbe {
  const wide = types.length === 1 && INT64_TYPES.has(types[0]);
  const narrow = types.length === 1 && INT32_TYPES.has(types[0]);
  const hasNull = cols.some((c) => { if (c.nullCount === 0) return false; for (let i = 0; i < rows; i++) if (!isValidAt(c, i)) return true; return false; });
  if ((wide || narrow) && !hasNull) return intProbe(cols[0], wide, rows);
  const map = new Map<string, number>();
  for (let i = 0; i < rows; i++) map.set(rowKey(cols, i), i);
  const bind = (c: AnyData[]) => (i: number) => map.get(rowKey(c, i)) ?? -1;
  return {
    size: map.size,
    bind,
    scan(c, rows, out) {
      const find = bind(c);
      let n = 0;
      for (let i = 0; i < rows; i++) { const j = find(i); if (j >= 0) { out[n++] = i; out[n++] = j; } }
      return n >> 1;
    },
  };
}

function intProbe(col: AnyData, wide: boolean, rows: number): KeyProbe {
  let cap = 16;
  while (cap < rows * 2) cap <<= 1;
  const mask = cap - 1;
  const lo = new Int32Array(cap), hi = new Int32Array(cap), at = new Int32Array(cap).fill(-1);
  const w = words(col);
  let size = 0;
  for (let i = 0; i < rows; i++) {
    const l = wide ? w[2 * i] : w[i], h = wide ? w[2 * i + 1] : 0;
    let s = hash(l, h) & mask;
    while (at[s] !== -1 && (lo[s] !== l || hi[s] !== h)) s = (s + 1) & mask;
    if (at[s] === -1) size++;
    lo[s] = l; hi[s] = h; at[s] = i;
  }
  // A bit per (low word ^ high word) of every incoming key, ~64 bits a key (at most 2 MiB): most
  // rows of a candidate file hold no incoming key, and one bit test settles them without hashing.
  let fbits = 1 << 16;
  while (fbits < rows * 64 && fbits < 1 << 24) fbits <<= 1;
  const fmask = fbits - 1;
  const filter = new Int32Array(fbits >>> 5);
  for (let i = 0; i < rows; i++) {
    const f = ((wide ? w[2 * i] ^ w[2 * i + 1] : w[i]) & fmask) >>> 0;
    filter[f >>> 5] |= 1 << (f & 31);
  }
  return {
    size,
    scan(cols, rows, out) {
      // one tight loop per batch (the hot path of an INCREMENTAL merge: every row of every candidate file)
      const d = cols[0];
      const v = words(d);
      const nulls = d.nullCount > 0;
      let n = 0;
      for (let i = 0; i < rows; i++) {
        if (nulls && !isValidAt(d, i)) continue;
        const l = wide ? v[2 * i] : v[i], h = wide ? v[2 * i + 1] : 0;
        const f = ((l ^ h) & fmask) >>> 0;
        if ((filter[f >>> 5] & (1 << (f & 31))) === 0) continue;
        let s = hash(l, h) & mask;
        for (;;) {
          const a = at[s];
          if (a === -1) break;
          if (lo[s] === l && hi[s] === h) { out[n++] = i; out[n++] = a; break; }
          s = (s + 1) & mask;
        }
      }
      return n >> 1;
    },
    bind(cols) {
      const d = cols[0];
      const v = words(d);
      const nulls = d.nullCount > 0;
      return (i) => {
        if (nulls && !isValidAt(d, i)) return -1;
        const l = wide ? v[2 * i] : v[i], h = wide ? v[2 * i + 1] : 0;
        let s = hash(l, h) & mask;
        for (;;) {
          const a = at[s];
          if (a === -1) return -1;
          if (lo[s] === l && hi[s] === h) return a;
          s = (s + 1) & mask;
        }
      };
    },
  };
}
