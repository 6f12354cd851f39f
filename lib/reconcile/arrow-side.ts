import * as arrow from 'apache-arrow';
import { cellRenderer, cellWriter, type CellRenderer, type CellWriter } from './arrow-canonical';
import { md5Prefix, RowBytes } from './md5';
import { Digest, FIELD_SEP, hashToBigInt, md5Digest, NULL_MARK, prefix32, type BucketDigest } from './row-hash';
import type { DqSide, SideRow } from './side';
import { KEY_MIX, type DigestKind, type KeyHashKind, type PrefixFilter } from './sql-common';

/** A row predicate over a batch (the window), built once per batch. */
export type BatchPredicate = (batch: arrow.RecordBatch) => ((i: number) => boolean) | null;

export interface ArrowSideOptions {
  /** A fresh scan of these columns (by name) for every pass. */
  scan(columns: string[]): AsyncIterable<arrow.RecordBatch>;
  /** Key columns (names as the batches spell them), in unique_key order. */
  keys: { name: string; asFloat: boolean }[];
  /** Compared columns, in the comparison's order. */
  columns: { name: string; asFloat: boolean }[];
  /** Extra columns the window predicate reads. (Default: none) */
  windowColumns?: string[];
  /** The window, evaluated in the decode loop. (Default: every row) */
  window?: BatchPredicate;
  /** Key → bucket mapping; must match the other side's. (Default: md5) */
  keyHash?: KeyHashKind;
  /** How bucket digests combine row hashes; must match the other side's. (Default: sum) */
  digest?: DigestKind;
  signal?: AbortSignal;
}

interface Plan {
  data: arrow.Data[];
  render: CellRenderer[];
  write: CellWriter[];
  keyIdx: number[];
  /** High 32 bits of the key hash of row i. */
  keyHi: (i: number) => number;
  keep: ((i: number) => boolean) | null;
}

/** Low 32 bits of an integer key cell, two's complement (what `k & 4294967295` keeps in SQL). */
function low32Reader(d: arrow.Data): (i: number) => number {
  const v = d.values as ArrayLike<number> | BigInt64Array | BigUint64Array;
  if (v instanceof BigInt64Array || v instanceof BigUint64Array) {
    const words = new Int32Array(v.buffer, v.byteOffset, v.length * 2); // little-endian: low word first
    return (i) => words[2 * i]; // values are pre-sliced (row i is values[i])
  }
  return (i) => (v as ArrayLike<number>)[i] | 0;
}

/**
 * The lake (or staged Parquet) side: hashes rows in the decode loop with the
 * renderers of `arrow-canonical.ts`, keeping only per-bucket digests (or the
 * rows of the requested buckets) in memory.
 */
export function arrowSide(opts: ArrowSideOptions): DqSide {
  const colNames = opts.columns.map((c) => c.name);
  const keyIdx = opts.keys.map((k) => {
    const i = colNames.indexOf(k.name);
    if (i < 0) throw new Error(`dq: key column ${k.name} is not among the compared columns`);
    return i;
  });
  const keyHash = opts.keyHash ?? 'md5';
  if (keyHash === 'int32' && keyIdx.length !== 1) throw new Error('dq: the int32 key hash needs a single key column');
  const scanCols = [...new Set([...colNames, ...(opts.windowColumns ?? [])])];
  const nCols = opts.columns.length;

  let cache: { schema: arrow.Schema | null; render: CellRenderer[]; write: CellWriter[]; idx: number[] } = { schema: null, render: [], write: [], idx: [] };
  const rowBytes = new RowBytes();
  const keyBytes = new RowBytes();
  const planOf = (batch: arrow.RecordBatch): Plan => {
    if (cache.schema !== batch.schema) {
      const idx = opts.columns.map((c) => {
        const j = batch.schema.fields.findIndex((x) => x.name === c.name);
        if (j < 0) throw new Error(`dq: column ${c.name} missing from the scanned batch`);
        return j;
      });
      cache = {
        schema: batch.schema, idx,
        render: opts.columns.map((c, k) => cellRenderer(batch.schema.fields[idx[k]].type, c.asFloat)),
        write: opts.columns.map((c, k) => cellWriter(batch.schema.fields[idx[k]].type, c.asFloat)),
      };
    }
    const data = cache.idx.map((j) => batch.data.children[j] as arrow.Data);
    const render = cache.render;
    const write = cache.write;
    let keyHi: (i: number) => number;
    if (keyHash === 'int32') {
      const kd = data[keyIdx[0]];
      const low = low32Reader(kd);
      keyHi = (i) => Math.imul(low(i), KEY_MIX) >>> 0;
    } else {
      keyHi = (i) => {
        keyBytes.pos = 0;
        for (const k of keyIdx) { write[k](data[k], i, keyBytes); keyBytes.byte(0x1f); }
        return md5Prefix(keyBytes.buf, keyBytes.pos).hi >>> 0;
      };
    }
    return { data, render, write, keyIdx, keyHi, keep: opts.window?.(batch) ?? null };
  };

  const values = (p: Plan, i: number) => { const out = new Array<string | null>(nCols); for (let k = 0; k < nCols; k++) out[k] = p.render[k](p.data[k], i); return out; };
  const rowTextOf = (vals: (string | null)[]) => { let s = ''; for (const v of vals) s += (v === null ? NULL_MARK : v) + FIELD_SEP; return s; };

  async function* batches(cols: string[]) {
    for await (const b of opts.scan(cols)) { opts.signal?.throwIfAborted(); yield b; }
  }

  async function collect(accept: (p: Plan, i: number, vals: (string | null)[]) => boolean, prefilter?: (p: Plan, i: number) => boolean): Promise<SideRow[]> {
    const out: SideRow[] = [];
    for await (const batch of batches(scanCols)) {
      const p = planOf(batch);
      for (let i = 0; i < batch.numRows; i++) {
        if (p.keep && !p.keep(i)) continue;
        if (prefilter && !prefilter(p, i)) continue;
        const vals = values(p, i);
        if (!accept(p, i, vals)) continue;
        const d = md5Digest(rowTextOf(vals));
        out.push({ key: p.keyIdx.map((k) => vals[k]), hash: hashToBigInt({ hi: d.readInt32BE(0), lo: d.readUInt32BE(4) }).toString(), values: vals });
      }
    }
    return out;
  }

  return {
    async count() {
      let n = 0;
      // any one column gives the row count (a keyless table's has no key column to read)
      const countCols = opts.windowColumns?.length ? opts.windowColumns : [(opts.keys[0] ?? opts.columns[0]).name];
      for await (const batch of batches(countCols)) {
        const keep = opts.window?.(batch) ?? null;
        if (!keep) { n += batch.numRows; continue; }
        for (let i = 0; i < batch.numRows; i++) if (keep(i)) n++;
      }
      return n;
    },
    async digests(bits, within) {
      const buckets = new Map<number, Digest>();
      const inSet = within ? new Set(within.prefixes) : null;
      const wb = within?.bits ?? 0;
      for await (const batch of batches(scanCols)) {
        const p = planOf(batch);
        for (let i = 0; i < batch.numRows; i++) {
          if (p.keep && !p.keep(i)) continue;
          const hi = p.keyHi(i);
          if (inSet && !inSet.has(prefix32(hi, wb))) continue;
          const b = prefix32(hi, bits);
          let d = buckets.get(b);
          if (!d) { d = new Digest(opts.digest === 'xor'); buckets.set(b, d); }
          rowBytes.pos = 0;
          for (let k = 0; k < nCols; k++) { p.write[k](p.data[k], i, rowBytes); rowBytes.byte(0x1f); }
          const h = md5Prefix(rowBytes.buf, rowBytes.pos);
          d.add2(h.hi, h.lo);
        }
      }
      const out = new Map<number, BucketDigest>();
      for (const [b, d] of buckets) out.set(b, { count: d.count, sum: d.sum() });
      return out;
    },
    rows(within: PrefixFilter) {
      const inSet = new Set(within.prefixes);
      return collect(() => true, (p, i) => inSet.has(prefix32(p.keyHi(i), within.bits)));
    },
    rowsForKeys(keys) {
      const want = new Set(keys.map((k) => rowTextOf(k)));
      return collect((p, _i, vals) => want.has(rowTextOf(p.keyIdx.map((k) => vals[k]))));
    },
  };
}
