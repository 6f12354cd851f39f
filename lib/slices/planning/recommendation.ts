/**
 * Probe arithmetic and the recommendation panel (seed 001, §7). Pure.
 */

const MB = 1024 * 1024;

export interface CandidateResult {
  /** `ROWID` / `ctid` for physical, the column name otherwise. */
  label: string;
  kind: 'physical' | 'column';
  column?: string;
  /** Measured throughput of the capped representative slice. */
  mbPerSec: number;
  rowsPerSec: number;
  rows: number;
  bytes: number;
  seconds: number;
  /** The wall-clock budget stopped the fetch (the figure is still a rate). */
  timedOut: boolean;
  accessPath: string;
  verdict: 'good' | 'AMPLIFYING' | 'error';
  /** Inner tables read in full per slice. */
  fullScans: { table: string; rows: number | null }[];
  error?: string;
}

/** chunk_count = ceil(segment_bytes / (target_slice_seconds × MB/s)), at least 1. */
export function chunkCount(segmentBytes: number, targetSliceSeconds: number, mbPerSec: number): number {
  if (!(mbPerSec > 0) || !(segmentBytes > 0)) return 1;
  return Math.max(1, Math.ceil(segmentBytes / (targetSliceSeconds * mbPerSec * MB)));
}

/**
 * Fastest disjoint, non-amplifying candidate. Ties break toward physical: a
 * physical candidate within `tieTolerance` of the best wins (its boundaries
 * cost nothing and depend on no index). (Default tolerance: 0.05)
 */
export function rankCandidates(cands: CandidateResult[], tieTolerance = 0.05): CandidateResult | undefined {
  const ok = cands.filter((c) => c.verdict === 'good' && c.rows > 0).sort((a, b) => b.mbPerSec - a.mbPerSec);
  const best = ok[0];
  if (!best) return undefined;
  const phys = ok.find((c) => c.kind === 'physical');
  if (phys && phys !== best && phys.mbPerSec >= best.mbPerSec * (1 - tieTolerance)) return phys;
  return best;
}

/**
 * The concurrency knee: the smallest k after which doubling adds less than
 * `minGain` (Default: 0.15) aggregate throughput.
 */
export function concurrencyKnee(ramp: { k: number; mbPerSec: number }[], minGain = 0.15): number {
  if (ramp.length === 0) return 1;
  let best = ramp[0];
  for (const step of ramp.slice(1)) {
    if (step.mbPerSec < best.mbPerSec * (1 + minGain)) break;
    best = step;
  }
  return best.k;
}

export interface Recommendation {
  strategy: 'rowid' | 'column' | 'partition';
  /** Column for `column`; null otherwise. */
  key: string | null;
  chunk_count: number;
  /** A number from the adaptive ramp, or `keep configured`. */
  concurrency: number | 'keep configured';
  table: string;
  query_file: string | null;
  depth: 'lightweight' | 'bakeoff' | 'adaptive';
  winner_MB_per_sec: number;
  segment_bytes: number;
  partitioned: boolean;
  candidates: CandidateResult[];
  ramp: { k: number; mbPerSec: number }[];
  warnings: string[];
  run_id: number | null;
  engine: string;
  created_at: string;
}

const LINE = '='.repeat(64);
const RULE = '-'.repeat(64);
const cut = (s: string, n: number) => (s.length > n ? s.slice(0, n - 1) + '…' : s.padEnd(n));

/** The panel as the seed prints it. */
export function formatPanel(r: Recommendation): string {
  const out = [
    LINE, 'PROBE RECOMMENDATION', LINE,
    `  strategy:        ${r.strategy}`,
    `  key:             ${r.key ?? '-'}`,
    `  chunk_count:     ${r.chunk_count}`,
    `  concurrency:     ${r.concurrency}`,
    `  winner_MB_per_sec: ${r.winner_MB_per_sec.toFixed(2)}`,
    RULE,
    `  ${'label'.padEnd(14)} ${'kind'.padEnd(8)} ${'MB/s'.padStart(6)}  ${'access_path'.padEnd(24)}  verdict`,
  ];
  for (const c of r.candidates) {
    out.push(`  ${cut(c.label, 14)} ${c.kind.padEnd(8)} ${c.mbPerSec.toFixed(2).padStart(6)}  ${cut(c.accessPath, 24)}  ${c.verdict}${c.timedOut ? ' (budget)' : ''}`);
  }
  if (r.ramp.length) {
    out.push(RULE, `  concurrency ramp: ${r.ramp.map((s) => `k=${s.k} ${s.mbPerSec.toFixed(2)} MB/s`).join(', ')}`);
  }
  out.push(RULE, r.partitioned ? '  partition: table IS partitioned — consider --strategy partition' : '  partition: table is not partitioned');
  if (r.warnings.length) {
    out.push('  warnings:');
    for (const w of r.warnings) out.push(`    - ${w}`);
  }
  out.push(LINE);
  return out.join('\n');
}
