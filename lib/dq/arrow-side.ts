import type * as arrow from 'apache-arrow';
import { cellRenderer, type CellRenderer } from './arrow-canonical';
import { Digest, FIELD_SEP, hash64, hashToBigInt, NULL_MARK, prefixOf, type BucketDigest } from './row-hash';
import type { DqSide, SideRow } from './side';
import type { PrefixFilter } from './sql-common';

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
  signal?: AbortSignal;
}

interface Plan {
  schema: arrow.Schema;
  cols: { data: arrow.Data; render: CellRenderer }[];
  keyIdx: number[];
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
  const scanCols = [...new Set([...colNames, ...(opts.windowColumns ?? [])])];

  let renderers: { schema: arrow.Schema | null; r: CellRenderer[] } = { schema: null, r: [] };
  const plan = (batch: arrow.RecordBatch): Plan => {
    if (renderers.schema !== batch.schema) {
      renderers = {
        schema: batch.schema,
        r: opts.columns.map((c) => {
          const f = batch.schema.fields.find((x) => x.name === c.name);
          if (!f) throw new Error(`dq: column ${c.name} missing from the scanned batch`);
          return cellRenderer(f.type, c.asFloat);
        }),
      };
    }
    const idx = opts.columns.map((c) => batch.schema.fields.findIndex((x) => x.name === c.name));
    return { schema: batch.schema, cols: idx.map((j, k) => ({ data: batch.data.children[j] as arrow.Data, render: renderers.r[k] })), keyIdx };
  };

  /** Visit every windowed row: key text first (cheap filter), row text on demand. */
  async function each(visit: (keyText: string, p: Plan, i: number) => void): Promise<number> {
    let n = 0;
    for await (const batch of opts.scan(scanCols)) {
      opts.signal?.throwIfAborted();
      const p = plan(batch);
      const keep = opts.window?.(batch) ?? null;
      for (let i = 0; i < batch.numRows; i++) {
        if (keep && !keep(i)) continue;
        let kt = '';
        for (const k of p.keyIdx) { const v = p.cols[k].render(p.cols[k].data, i); kt += (v === null ? NULL_MARK : v) + FIELD_SEP; }
        visit(kt, p, i);
        n++;
      }
    }
    return n;
  }
  const rowValues = (p: Plan, i: number) => p.cols.map((c) => c.render(c.data, i));
  const rowTextOf = (vals: (string | null)[]) => { let s = ''; for (const v of vals) s += (v === null ? NULL_MARK : v) + FIELD_SEP; return s; };

  async function collect(accept: (keyText: string) => boolean): Promise<SideRow[]> {
    const out: SideRow[] = [];
    await each((kt, p, i) => {
      if (!accept(kt)) return;
      const values = rowValues(p, i);
      out.push({ key: p.keyIdx.map((k) => values[k]), hash: hashToBigInt(hash64(rowTextOf(values))).toString(), values });
    });
    return out;
  }

  return {
    async count() {
      let n = 0;
      const countCols = opts.windowColumns?.length ? opts.windowColumns : [opts.keys[0].name];
      for await (const batch of opts.scan(countCols)) {
        opts.signal?.throwIfAborted();
        const keep = opts.window?.(batch) ?? null;
        if (!keep) { n += batch.numRows; continue; }
        for (let i = 0; i < batch.numRows; i++) if (keep(i)) n++;
      }
      return n;
    },
    async digests(bits, within) {
      const buckets = new Map<number, Digest>();
      const inSet = within ? new Set(within.prefixes) : null;
      await each((kt, p, i) => {
        const kh = hash64(kt);
        if (inSet && !inSet.has(prefixOf(kh, within!.bits))) return;
        const b = prefixOf(kh, bits);
        let d = buckets.get(b);
        if (!d) { d = new Digest(); buckets.set(b, d); }
        d.add(hash64(rowTextOf(rowValues(p, i))));
      });
      const out = new Map<number, BucketDigest>();
      for (const [b, d] of buckets) out.set(b, { count: d.count, sum: d.sum() });
      return out;
    },
    rows(within) {
      const inSet = new Set(within.prefixes);
      return collect((kt) => inSet.has(prefixOf(hash64(kt), within.bits)));
    },
    rowsForKeys(keys) {
      const want = new Set(keys.map((k) => rowTextOf(k)));
      return collect((kt) => want.has(kt));
    },
  };
}
