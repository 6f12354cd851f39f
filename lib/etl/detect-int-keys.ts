import type * as arrow from 'apache-arrow';

/**
 * Deleted keys of a table with a single integer key, by key ranges instead of
 * hashed buckets: the lake's live keys (one column, held as numbers) are cut
 * into ranges of about KEYS_PER_RANGE keys, the source gives count and sum per
 * range in one aggregate (an integer expression over the key alone, which its
 * primary-key index can serve without touching the rows: no text, no MD5), and
 * only the ranges that differ are read key by key, as range predicates. Keys
 * above the lake's largest are new rows and are not looked at. The cost grows
 * with the keys, at a fraction of a microsecond each on both sides.
 */
export interface IntKeySource {
  dialect: 'postgres' | 'oracle';
  /** `FROM …` relation with the child as `t`, and the quoted key reference (`t."ID"`). */
  from: string;
  key: string;
  run(sql: string): Promise<Record<string, string | null>[]>;
}

const KEYS_PER_RANGE = 64;
/** Ranges per key query (an OR of BETWEENs). */
const RANGES_PER_QUERY = 500;

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
    for (let i = 0; i < b.numRows; i++) {
      const j = d.offset + i;
      if (bm && (bm[j >> 3] & (1 << (j & 7))) === 0) continue;
      if (keep && !keep(i)) continue;
      out[n++] = Number(vals[j]);
    }
  }
  const keys = out.subarray(0, n);
  for (let i = 0; i < n; i++) if (!Number.isSafeInteger(keys[i])) return null;
  return keys;
}

/** Keys of `lake` (sorted in place) that the source no longer has. */
export async function deletedIntKeys(src: IntKeySource, lake: Float64Array): Promise<{ keys: number[]; sourceKeys: number }> {
  if (!lake.length) return { keys: [], sourceKeys: 0 };
  lake.sort();
  const min = lake[0], max = lake[lake.length - 1];
  const width = Math.max(1, Math.ceil((max - min + 1) / Math.max(1, Math.ceil(lake.length / KEYS_PER_RANGE))));
  const bucket = (k: number) => Math.floor((k - min) / width);
  // lake side: count and exact sum per range
  const lakeN = new Map<number, number>(), lakeS = new Map<number, bigint>();
  for (let i = 0; i < lake.length;) {
    const b = bucket(lake[i]);
    let n = 0, s = 0n;
    for (; i < lake.length && bucket(lake[i]) === b; i++) { n++; s += BigInt(lake[i]); }
    lakeN.set(b, n); lakeS.set(b, s);
  }
  const { dialect, from, key } = src;
  const bExpr = dialect === 'postgres' ? `((${key} - ${min}) / ${width})::bigint` : `FLOOR((${key} - ${min}) / ${width})`;
  const rows = await src.run(`SELECT ${bExpr} AS b, count(*) AS n, sum(${key}) AS s FROM ${from} WHERE ${key} BETWEEN ${min} AND ${max} GROUP BY ${bExpr}`);
  const differing: number[] = [];
  let sourceKeys = 0;
  const seen = new Set<number>();
  for (const r of rows) {
    const b = Number(r.b ?? r.B), n = Number(r.n ?? r.N), s = String(r.s ?? r.S);
    sourceKeys += n;
    seen.add(b);
    if (lakeN.get(b) !== n || String(lakeS.get(b)) !== s) differing.push(b);
  }
  for (const b of lakeN.keys()) if (!seen.has(b)) differing.push(b);
  differing.sort((x, y) => x - y);
  const keys: number[] = [];
  for (let i = 0; i < differing.length; i += RANGES_PER_QUERY) {
    const part = differing.slice(i, i + RANGES_PER_QUERY);
    const preds = part.map((b) => `${key} BETWEEN ${min + b * width} AND ${min + (b + 1) * width - 1}`);
    const have = new Set((await src.run(`SELECT ${key} AS k FROM ${from} WHERE ${preds.join(' OR ')}`)).map((r) => Number(r.k ?? r.K)));
    // the lake keys of these ranges (sorted: a binary search to each range's start)
    for (const b of part) {
      const lo = min + b * width, hi = lo + width - 1;
      let a = 0, z = lake.length;
      while (a < z) { const m = (a + z) >> 1; if (lake[m] < lo) a = m + 1; else z = m; }
      for (let j = a; j < lake.length && lake[j] <= hi; j++) if (!have.has(lake[j]) && (j === 0 || lake[j - 1] !== lake[j])) keys.push(lake[j]);
    }
  }
  return { keys, sourceKeys };
}
