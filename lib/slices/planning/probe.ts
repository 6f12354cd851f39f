import type { Logger } from '../../log';
import type { FieldStyle } from './validate';
import type { SourceDialect, SourceExecutor } from '../../sources';
import { chunkCount, concurrencyKnee, rankCandidates, type CandidateResult, type Recommendation } from './recommendation';
import { planSplit, type PlannedSlice } from './split';
import type { QueryTemplate } from './template';
import type { Depth } from './validate';

export interface ProbeOptions {
  dialect: SourceDialect;
  /** How errors name fields (CLI flags or job params). (Default: flag) */
  style?: FieldStyle;
  template: QueryTemplate;
  /** (Default: bakeoff) */
  depth?: Depth;
  /** Desired per-slice runtime; drives chunk count. (Default: 600) */
  targetSliceSeconds?: number;
  /** Row cap of every timing query. (Default: 100000) */
  sampleRows?: number;
  /** Wall-clock cap of every timing query, seconds. (Default: 20) */
  timeBudgetSeconds?: number;
  /** Ceiling of the adaptive concurrency ramp. (Default: 32) */
  maxConcurrency?: number;
  /** An inner table read in full with at least this many rows makes a plan AMPLIFYING. (Default: 100000) */
  amplifyMinRows?: number;
  /** Column candidates raced in a bakeoff. (Default: 3) */
  maxColumns?: number;
  queryFile?: string | null;
  runId?: number | null;
  logger?: Logger;
  signal?: AbortSignal;
}

/**
 * Race candidate split strategies on bounded samples of the real query and
 * recommend strategy, chunk count and (adaptive) concurrency. Every statement
 * goes through the dialect's executor: catalog look-ups, TABLESAMPLE/SAMPLE
 * reads, EXPLAIN, and timing fetches wrapped in a row cap under a wall-clock
 * budget. Nothing scans the real table unbounded.
 */
export async function runProbe(o: ProbeOptions): Promise<Recommendation> {
  const { dialect, template: t } = o;
  const depth = o.depth ?? 'bakeoff';
  const sampleRows = o.sampleRows ?? 100_000;
  const budgetMs = (o.timeBudgetSeconds ?? 20) * 1000;
  const targetSliceSeconds = o.targetSliceSeconds ?? 600;
  const amplifyMinRows = o.amplifyMinRows ?? 100_000;
  const log = o.logger;
  await dialect.assertTable(t.table);

  const [segmentBytes, estRows, partitioned] = await Promise.all([
    dialect.tableBytes(t.table), dialect.estimatedRows(t.table), dialect.isPartitioned(t.table),
  ]);
  // Representative slices come from a split into slices of about twice
  // sampleRows rows, so the row cap (not the slice's end) stops the timing.
  const repChunks = Math.min(256, Math.max(2, Math.floor(estRows / (2 * sampleRows))));
  const warnings: string[] = [];
  const candidates: CandidateResult[] = [];
  const plans = new Map<string, PlannedSlice[]>();

  const measure = async (label: string, kind: 'physical' | 'column', column: string | undefined): Promise<void> => {
    o.signal?.throwIfAborted();
    const c: CandidateResult = { label, kind, column, mbPerSec: 0, rowsPerSec: 0, rows: 0, bytes: 0, seconds: 0, timedOut: false, accessPath: '', verdict: 'good', fullScans: [] };
    try {
      const plan = await planSplit({ dialect, template: t, strategy: kind === 'physical' ? 'rowid' : 'column', column, chunks: repChunks, sampleRows: Math.min(sampleRows, 20_000), bounded: true, style: o.style });
      plans.set(label, plan.slices);
      const slice = plan.slices[0];
      const ex = await dialect.explain(slice.sql, { table: t.table, alias: t.alias });
      c.accessPath = ex.accessPath;
      c.fullScans = ex.fullScans;
      const big = ex.fullScans.filter((f) => (f.rows ?? 0) >= amplifyMinRows);
      if (big.length) {
        c.verdict = 'AMPLIFYING';
        for (const f of big) warnings.push(`AMPLIFYING: candidate '${label}' full-scans ${f.table} (join amplification)`);
      }
      const f = await dialect.exec.timedFetch(dialect.rowCap(slice.sql, sampleRows), { budgetMs });
      c.rows = f.rows;
      c.bytes = f.bytes;
      c.seconds = f.ms / 1000;
      c.timedOut = f.timedOut;
      c.mbPerSec = f.ms > 0 ? f.bytes / (1024 * 1024) / (f.ms / 1000) : 0;
      c.rowsPerSec = f.ms > 0 ? f.rows / (f.ms / 1000) : 0;
      if (f.rows === 0) warnings.push(`candidate '${label}': its representative slice returned no rows`);
    } catch (e) {
      c.verdict = 'error';
      c.error = (e as Error).message;
      warnings.push(`candidate '${label}' failed: ${c.error.split('\n')[0]}`);
    }
    log?.info('slices: probe candidate', { label, kind, mbPerSec: Number(c.mbPerSec.toFixed(2)), rows: c.rows, accessPath: c.accessPath, verdict: c.verdict });
    candidates.push(c);
  };

  await measure(dialect.physicalLabel, 'physical', undefined);
  if (depth !== 'lightweight') {
    const cols = await dialect.columnCandidates(t.table, o.maxColumns ?? 3);
    if (cols.length === 0) warnings.push('no indexed numeric/date column with NDV > 1: column candidates empty (use --strategy rowid, or add an index)');
    for (const col of cols) await measure(col.column, 'column', col.column);
  }

  const winner = rankCandidates(candidates);
  if (!winner) warnings.push('no candidate produced a measurable, non-amplifying plan: falling back to physical with one chunk per run of the budget');
  const mbps = winner?.mbPerSec ?? 0;
  const chunks = chunkCount(segmentBytes, targetSliceSeconds, mbps);

  const ramp: { k: number; mbPerSec: number }[] = [];
  let concurrency: number | 'keep configured' = 'keep configured';
  if (depth === 'adaptive' && winner) {
    const maxK = Math.max(1, o.maxConcurrency ?? 32);
    // Slices for the ramp: a split of the winner with at least maxK slices.
    const rampPlan = await planSplit({
      dialect, template: t, strategy: winner.kind === 'physical' ? 'rowid' : 'column', column: winner.column,
      chunks: Math.max(maxK, repChunks), sampleRows: Math.min(sampleRows, 20_000), bounded: true, style: o.style,
    });
    // Full amplification audit: first, middle and last slices of the winner.
    const s = rampPlan.slices;
    for (const sl of [...new Set([s[0], s[Math.floor(s.length / 2)], s[s.length - 1]])]) {
      const ex = await dialect.explain(sl.sql, { table: t.table, alias: t.alias });
      for (const f of ex.fullScans.filter((x) => (x.rows ?? 0) >= amplifyMinRows)) {
        warnings.push(`AMPLIFYING: slice ${sl.index} of '${winner.label}' full-scans ${f.table}`);
      }
    }
    const forks: SourceExecutor[] = [];
    try {
      for (let k = 1; k <= maxK; k *= 2) {
        o.signal?.throwIfAborted();
        while (forks.length < k) forks.push(forks.length === 0 ? dialect.exec : await dialect.exec.fork());
        const picks = Array.from({ length: k }, (_, i) => s[Math.floor((i * s.length) / k)]);
        const t0 = performance.now();
        const res = await Promise.all(picks.map((sl, i) => forks[i].timedFetch(dialect.rowCap(sl.sql, sampleRows), { budgetMs })));
        const secs = (performance.now() - t0) / 1000;
        const step = { k, mbPerSec: res.reduce((a, r) => a + r.bytes, 0) / (1024 * 1024) / secs };
        ramp.push(step);
        log?.info('slices: probe ramp', { k, mbPerSec: Number(step.mbPerSec.toFixed(2)) });
        if (ramp.length >= 2 && concurrencyKnee(ramp) < k) break; // past the knee
      }
    } finally {
      for (const f of forks.slice(1)) await f.close();
    }
    concurrency = concurrencyKnee(ramp);
  }

  return {
    strategy: winner?.kind === 'column' ? 'column' : 'rowid',
    key: winner?.kind === 'column' ? winner.column ?? null : null,
    chunk_count: chunks,
    concurrency,
    table: t.table,
    query_file: o.queryFile ?? null,
    depth,
    winner_MB_per_sec: Number(mbps.toFixed(4)),
    segment_bytes: segmentBytes,
    partitioned,
    candidates,
    ramp,
    warnings,
    run_id: o.runId ?? null,
    engine: dialect.engine,
    created_at: new Date().toISOString(),
  };
}
