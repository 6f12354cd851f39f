import type { BucketDigest } from './row-hash';
import { FIELD_SEP, NULL_MARK } from './row-hash';
import type { DqSide, SideRow } from './side';

export interface CompareOptions {
  /** Key-hash bits of the first digest pass: 2^bits buckets. (Default: 8 → 256 buckets) */
  topBits?: number;
  /** Bits added per descent. (Default: 8) */
  stepBits?: number;
  /** Rows a row-level pass may hold per side; above it the comparison descends or splits. (Default: 200000) */
  maxRowsInMemory?: number;
  /** Example keys kept per category. (Default: 20) */
  examples?: number;
  /** Keys kept per category for repair. (Default: 100000) */
  maxKeys?: number;
  /** Compared column names, in the sides' column order (to name differing columns). */
  columnNames: string[];
  /** Key column names, in unique_key order. */
  keyNames: string[];
  signal?: AbortSignal;
}

export type KeyValues = (string | null)[];
export interface MismatchExample { key: Record<string, string | null>; columns: string[] }

export interface HashDiff {
  sourceRows: number;
  lakeRows: number;
  matched: number;
  onlyInSource: number;
  onlyInLake: number;
  mismatch: number;
  /** Per category, up to `examples` keys (mismatches with the differing column names). */
  examples: {
    only_in_source: Record<string, string | null>[];
    only_in_lake: Record<string, string | null>[];
    hash_mismatch: MismatchExample[];
  };
  /** Differing column → mismatched rows where it differs. */
  mismatchColumns: Record<string, number>;
  /** Keys for repair (up to maxKeys each); `complete` false when some were not collected. */
  keys: { onlyInSource: KeyValues[]; onlyInLake: KeyValues[]; mismatch: KeyValues[]; complete: boolean };
  /** Passes made over each side and buckets compared (the cost of the check). */
  stats: { passes: number; buckets: number; depthBits: number; rowLevelRows: number };
}

const keyText = (k: KeyValues) => k.map((v) => (v === null ? NULL_MARK : v) + FIELD_SEP).join('');

/**
 * Compare two sides without holding all keys: digests per key-hash bucket
 * first, then only the buckets that differ — descending into finer buckets
 * while that narrows the difference (bisection, as data-diff tools do), then
 * row level for what remains. A bucket empty on one side needs no row pass:
 * all its rows are only on the other side (rows are fetched only for examples).
 */
export async function compareSides(source: DqSide, lake: DqSide, opts: CompareOptions): Promise<HashDiff> {
  const topBits = opts.topBits ?? 8;
  const step = opts.stepBits ?? 8;
  const maxRows = opts.maxRowsInMemory ?? 200_000;
  const nEx = opts.examples ?? 20;
  const maxKeys = opts.maxKeys ?? 100_000;
  const acc = diffAccumulator(opts);
  const { res, keyObj, diffRows, pushKey } = acc;
  res.stats.depthBits = topBits;

  let bits = topBits;
  let [s, l] = await Promise.all([source.digests(bits), lake.digests(bits)]);
  res.stats.passes++;
  for (const d of s.values()) res.sourceRows += d.count;
  for (const d of l.values()) res.lakeRows += d.count;

  /** Buckets present on one side only: their rows are counted at once, keys fetched later. */
  const oneSided: { bits: number; b: number; side: 'source' | 'lake'; count: number }[] = [];
  /** Split buckets into equal (counted as matched), one-sided (counted) and mixed (to look into). */
  const classify = (sm: Map<number, BucketDigest>, lm: Map<number, BucketDigest>) => {
    const mixed: number[] = [];
    let mixedRows = 0;
    for (const b of new Set([...sm.keys(), ...lm.keys()])) {
      res.stats.buckets++;
      const a = sm.get(b), c = lm.get(b);
      if (a && c && a.count === c.count && a.sum === c.sum) { res.matched += a.count; continue; }
      if (!a || !c) {
        if (a) res.onlyInSource += a.count; else res.onlyInLake += c!.count;
        oneSided.push({ bits, b, side: a ? 'source' : 'lake', count: (a ?? c)!.count });
        continue;
      }
      mixed.push(b);
      mixedRows += Math.max(a.count, c.count);
    }
    return { mixed, mixedRows };
  };
  let { mixed, mixedRows } = classify(s, l);

  // Descend while the differing rows do not fit and descending still narrows them.
  while (mixed.length && mixedRows > maxRows && bits < 32) {
    opts.signal?.throwIfAborted();
    const within = { bits, prefixes: mixed };
    const next = Math.min(32, bits + step);
    [s, l] = await Promise.all([source.digests(next, within), lake.digests(next, within)]);
    res.stats.passes++;
    bits = next;
    const before = mixedRows;
    ({ mixed, mixedRows } = classify(s, l));
    if (mixedRows > before / 2) break; // differences are dense: finer buckets will not help
  }
  res.stats.depthBits = bits;

  // Row level: mixed buckets in groups that fit in memory.
  if (mixed.length) {
    const per = Math.max(1, Math.floor(mixed.length * maxRows / Math.max(1, mixedRows)));
    for (let i = 0; i < mixed.length; i += per) {
      opts.signal?.throwIfAborted();
      const within = { bits, prefixes: mixed.slice(i, i + per) };
      const [sr, lr] = await Promise.all([source.rows(within), lake.rows(within)]);
      res.stats.passes++;
      res.stats.rowLevelRows += sr.length + lr.length;
      diffRows(sr, lr);
    }
  }

  // Keys of one-sided buckets, from the side that has them: all of them when they fit, else enough for examples.
  for (const side of ['source', 'lake'] as const) {
    const list = oneSided.filter((x) => x.side === side);
    if (!list.length) continue;
    const total = list.reduce((n, x) => n + x.count, 0);
    let chosen = list;
    if (total > Math.min(maxKeys, maxRows)) {
      res.keys.complete = false;
      chosen = [];
      let n = 0;
      for (const x of list) { if (n >= nEx) break; chosen.push(x); n += x.count; }
    }
    const byBits = new Map<number, number[]>();
    for (const x of chosen) byBits.set(x.bits, [...(byBits.get(x.bits) ?? []), x.b]);
    for (const [bb, prefixes] of byBits) {
      const rows = await (side === 'source' ? source : lake).rows({ bits: bb, prefixes });
      res.stats.passes++;
      for (const r of rows) {
        if (side === 'source') {
          if (res.examples.only_in_source.length < nEx) res.examples.only_in_source.push(keyObj(r.key));
          pushKey(res.keys.onlyInSource, r.key);
        } else {
          if (res.examples.only_in_lake.length < nEx) res.examples.only_in_lake.push(keyObj(r.key));
          pushKey(res.keys.onlyInLake, r.key);
        }
      }
    }
  }
  return res;
}

/** The result being built and the row-level diff, shared by compareSides and diffRowSets. */
function diffAccumulator(opts: Omit<CompareOptions, 'signal'>) {
  const nEx = opts.examples ?? 20;
  const maxKeys = opts.maxKeys ?? 100_000;
  const keyObj = (k: KeyValues) => Object.fromEntries(opts.keyNames.map((n, i) => [n, k[i]]));
  const res: HashDiff = {
    sourceRows: 0, lakeRows: 0, matched: 0, onlyInSource: 0, onlyInLake: 0, mismatch: 0,
    examples: { only_in_source: [], only_in_lake: [], hash_mismatch: [] },
    mismatchColumns: {},
    keys: { onlyInSource: [], onlyInLake: [], mismatch: [], complete: true },
    stats: { passes: 0, buckets: 0, depthBits: 0, rowLevelRows: 0 },
  };
  function diffRows(sr: SideRow[], lr: SideRow[]) {
    const src = new Map<string, SideRow>();
    for (const r of sr) src.set(keyText(r.key), r);
    const seen = new Set<string>();
    for (const r of lr) {
      const kt = keyText(r.key);
      const a = src.get(kt);
      if (!a || seen.has(kt)) { addOnlyInLake(r.key); continue; }
      seen.add(kt);
      if (a.hash === r.hash) { res.matched++; continue; }
      res.mismatch++;
      const cols = opts.columnNames.filter((_, i) => a.values[i] !== r.values[i]);
      for (const c of cols) res.mismatchColumns[c] = (res.mismatchColumns[c] ?? 0) + 1;
      if (res.examples.hash_mismatch.length < nEx) res.examples.hash_mismatch.push({ key: keyObj(r.key), columns: cols });
      pushKey(res.keys.mismatch, r.key);
    }
    for (const [kt, a] of src) if (!seen.has(kt)) addOnlyInSource(a.key);
  }
  function addOnlyInLake(k: KeyValues) {
    res.onlyInLake++;
    if (res.examples.only_in_lake.length < nEx) res.examples.only_in_lake.push(keyObj(k));
    pushKey(res.keys.onlyInLake, k);
  }
  function addOnlyInSource(k: KeyValues) {
    res.onlyInSource++;
    if (res.examples.only_in_source.length < nEx) res.examples.only_in_source.push(keyObj(k));
    pushKey(res.keys.onlyInSource, k);
  }
  function pushKey(list: KeyValues[], k: KeyValues) {
    if (list.length < maxKeys) list.push(k); else res.keys.complete = false;
  }
  return { res, keyObj, diffRows, pushKey };
}

/** A row-level diff of two row sets (the re-check after repair), same categories as compareSides. */
export function diffRowSets(source: SideRow[], lake: SideRow[], opts: Omit<CompareOptions, 'signal'>): HashDiff {
  const { res, diffRows } = diffAccumulator(opts);
  res.sourceRows = source.length;
  res.lakeRows = lake.length;
  diffRows(source, lake);
  return res;
}
