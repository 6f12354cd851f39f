import fs from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';
import type { Logger } from '../../log';
import { assortOrder, formatWaveSummary, waves } from './assort';
import type { SourceDialect } from '../../sources';
import { runProbe } from './probe';
import { formatQueryfile, parseQueryfile, writeTextFile } from './queryfile';
import { formatPanel, type Recommendation } from './recommendation';
import { planSplit, type SplitPlan } from './split';
import { runFolder, storeRecommendation } from './store-recommendation';
import { parseTemplate } from './template';
import {
  PlanningInputError, fieldOf, planningError, parseDepth, parsePositiveInt, parseStrategy, validateAlias, validateColumn, validateOwnerTable, validateTarget,
  type Depth, type FieldStyle, type Strategy,
} from './validate';

/** A slice as the orchestration table takes it (lib/slices/run/register). */
export interface SliceToRegister { query: string; target: string; lo?: string | null; hi?: string | null; predicate?: string | null }
export type RegisterFn = (runId: number, slices: SliceToRegister[], queryFile: string) => Promise<number>;

// ── probe ───────────────────────────────────────────────────────────────────

export interface ProbeRequest {
  query: string;
  queryFile: string | null;
  table: string;
  alias?: string;
  depth: Depth;
  targetSliceSeconds: number;
  sampleRows: number;
  timeBudgetSeconds: number;
  maxConcurrency: number;
  runId: number | null;
  /** Folder for probe_recommendation.json. (Default: <dataDir>/runs/<runId>/, or <dataDir>/runs/probe/ without a run id) */
  outputDir: string;
  /** How errors name fields (CLI flags or job params). (Default: flag) */
  style?: FieldStyle;
}

type Raw = Record<string, unknown>;
const str = (v: unknown) => (v === undefined || v === null ? undefined : String(v));

/**
 * Probe tunables: a flag wins; else the environment variable of the seed's
 * name (PROBE_*), reported by its name when bad; else the default.
 */
export function tunable(flag: string, flagValue: unknown, env: Record<string, string | undefined>, envName: string, dflt: number, style: FieldStyle = 'flag'): number {
  if (flagValue !== undefined && flagValue !== null) return parsePositiveInt(flag, flagValue, style);
  const v = env[envName];
  if (v === undefined || v === '') return dflt;
  if (!/^\d+$/.test(v.trim()) || Number(v) < 1) throw new PlanningInputError(`${envName} must be an integer, got '${v}'`, envName);
  return Number(v);
}

async function readQuery(raw: Raw, style: FieldStyle): Promise<{ query: string; queryFile: string | null }> {
  const file = str(raw.queryFile);
  const q = str(raw.query);
  const n = (f: string) => fieldOf(style, f);
  if (file && q !== undefined) throw planningError(style, `pass either ${n('queryFile')} or ${n('query')}, not both`, 'query');
  if (file) {
    try { return { query: await fs.readFile(file, 'utf8'), queryFile: file }; } catch {
      throw planningError(style, `cannot read ${n('queryFile')} '${file}'`, 'queryFile');
    }
  }
  if (q === undefined || q.trim() === '') throw planningError(style, `pass ${n('queryFile')} FILE or ${n('query')} SQL`, 'query');
  return { query: q, queryFile: null };
}

/** Validate probe flags (CLI, style `flag`) or a job payload (style `param`) into a request. */
export async function parseProbeRequest(raw: Raw, env: Record<string, string | undefined>, dataDir: string, style: FieldStyle = 'flag'): Promise<ProbeRequest> {
  const table = validateOwnerTable('table', raw.table, style);
  const alias = raw.alias === undefined ? undefined : validateAlias(raw.alias, style);
  const depth = parseDepth(raw.depth ?? env.PROBE_DEPTH_DEFAULT ?? 'bakeoff', style);
  const targetSliceSeconds = tunable('target-slice-seconds', raw.targetSliceSeconds, env, 'PROBE_TARGET_SLICE_SECONDS', 600, style);
  const sampleRows = tunable('sample-rows', raw.sampleRows, env, 'PROBE_SAMPLE_ROWS', 100_000, style);
  const timeBudgetSeconds = tunable('time-budget-seconds', raw.timeBudgetSeconds, env, 'PROBE_TIME_BUDGET_SECONDS', 20, style);
  const maxConcurrency = tunable('max-concurrency', raw.maxConcurrency, env, 'PROBE_MAX_CONCURRENCY', 32, style);
  const runId = raw.runId === undefined ? null : parsePositiveInt('run-id', raw.runId, style);
  const { query, queryFile } = await readQuery(raw, style);
  parseTemplate(query, { table, alias, style }); // template errors before any connection
  const outputDir = str(raw.outputDir) ?? (runId ? runFolder(dataDir, runId) : path.join(dataDir, 'runs', 'probe'));
  return { query, queryFile, table, alias, depth, targetSliceSeconds, sampleRows, timeBudgetSeconds, maxConcurrency, runId, outputDir, style };
}

export interface ProbeOutcome { recommendation: Recommendation; panel: string; file: string; id: string | null }

/** Run the probe and keep its recommendation (file, and DB when a pool is given). */
export async function probeAction(dialect: SourceDialect, req: ProbeRequest, deps: { pool: pg.Pool | null; logger?: Logger; signal?: AbortSignal }): Promise<ProbeOutcome> {
  const template = parseTemplate(req.query, { table: req.table, alias: req.alias, style: req.style });
  const recommendation = await runProbe({ style: req.style,
    dialect, template, depth: req.depth, targetSliceSeconds: req.targetSliceSeconds, sampleRows: req.sampleRows,
    timeBudgetSeconds: req.timeBudgetSeconds, maxConcurrency: req.maxConcurrency, queryFile: req.queryFile, runId: req.runId,
    logger: deps.logger, signal: deps.signal,
  });
  const stored = await storeRecommendation(deps.pool, recommendation, req.outputDir);
  return { recommendation, panel: formatPanel(recommendation), ...stored };
}

// ── split ───────────────────────────────────────────────────────────────────

export interface SplitRequest {
  query: string;
  queryFile: string | null;
  table: string;
  target: string;
  strategy: Strategy;
  column?: string;
  chunks?: number;
  alias?: string;
  subpartitions: boolean;
  assort: boolean;
  waveSize: number;
  explain: boolean;
  /** A positive SCN, or `current` to capture one first (Oracle). */
  asOfScn?: string;
  sampleRows: number;
  /** Run to register under; null = write the queryfile only. */
  runId: number | null;
  /** (Default: queryfile.txt in the current directory) */
  output: string;
  /** How errors name fields (CLI flags or job params). (Default: flag) */
  style?: FieldStyle;
}

/** Validate split flags (CLI, style `flag`) or a job payload (style `param`) into a request. */
export async function parseSplitRequest(raw: Raw, env: Record<string, string | undefined>, style: FieldStyle = 'flag'): Promise<SplitRequest> {
  const n = (f: string) => fieldOf(style, f);
  const table = validateOwnerTable('table', raw.table, style);
  const target = validateTarget(raw.target, style);
  const strategy = parseStrategy(raw.strategy ?? 'auto', style);
  const column = raw.column === undefined ? undefined : validateColumn(raw.column, style);
  if (strategy === 'column' && !column) throw planningError(style, `${n('column')} is required for ${n('strategy')} column`, 'column');
  const chunks = raw.chunks === undefined ? undefined : parsePositiveInt('chunks', raw.chunks, style);
  if (chunks === undefined && (strategy === 'rowid' || strategy === 'column')) {
    throw planningError(style, `${n('chunks')} N is required for ${n('strategy')} ${strategy} (run tributary slices probe for a recommendation)`, 'chunks');
  }
  const alias = raw.alias === undefined ? undefined : validateAlias(raw.alias, style);
  const waveSize = tunable('wave-size', raw.waveSize, env, 'CONCURRENT_APPS_MAX', 5, style);
  const sampleRows = tunable('sample-rows', raw.sampleRows, env, 'PROBE_SAMPLE_ROWS', 100_000, style);
  const asOf = str(raw.asOfScn);
  if (asOf !== undefined && !/^(\d+|current)$/i.test(asOf.trim())) throw planningError(style, `argument ${n('asOfScn')}: must be a positive integer SCN or 'current', got '${asOf}'`, 'asOfScn', { mark: false });
  const runIdRaw = raw.runId ?? (env.UNIQUE_RUN_ID || undefined);
  const runId = runIdRaw === undefined ? null : parsePositiveInt('run-id', runIdRaw, style);
  const { query, queryFile } = await readQuery(raw, style);
  parseTemplate(query, { table, alias, style });
  return {
    query, queryFile, table, target, strategy, column, chunks, alias, subpartitions: raw.subpartitions === true, assort: raw.assort === true,
    waveSize, explain: raw.explain === true, asOfScn: asOf?.trim().toLowerCase(), sampleRows, runId, output: str(raw.output) ?? 'queryfile.txt', style,
  };
}

export interface SplitOutcome {
  plan: SplitPlan;
  /** Lines in file order (assorted when asked). */
  lines: { sql: string; target: string; lo?: string; hi?: string; predicate: string; index: number }[];
  file: string;
  registered: number | null;
  scn: string | null;
  explain: string[] | null;
  waveSummary: string | null;
}

/** Plan the split, write the queryfile, optionally explain, assort and register. */
export async function splitAction(dialect: SourceDialect, req: SplitRequest, deps: { register?: RegisterFn; logger?: Logger }): Promise<SplitOutcome> {
  const style = req.style ?? 'flag';
  const template = parseTemplate(req.query, { table: req.table, alias: req.alias, style });
  let scn: string | null = null;
  if (req.asOfScn !== undefined) {
    if (!dialect.asOf || !dialect.currentScn) throw planningError(style, `${fieldOf(style, 'asOfScn')} is only supported for Oracle sources (this source is ${dialect.engine})`, 'asOfScn');
    scn = req.asOfScn === 'current' ? await dialect.currentScn() : req.asOfScn;
  }
  const plan = await planSplit({
    dialect, template, strategy: req.strategy, column: req.column, chunks: req.chunks, subpartitions: req.subpartitions,
    asOfScn: scn ?? undefined, sampleRows: req.sampleRows, logger: deps.logger, style,
  });
  let ordered = plan.slices;
  let waveSummary: string | null = null;
  if (req.assort) {
    const order = assortOrder(plan.slices.length, req.waveSize);
    ordered = order.map((i) => plan.slices[i]);
    waveSummary = formatWaveSummary(waves(order, Math.min(req.waveSize, plan.slices.length)), plan.slices.length);
  }
  const lines = ordered.map((s) => ({ sql: s.sql, target: req.target, lo: s.lo, hi: s.hi, predicate: s.predicate, index: s.index }));
  await writeTextFile(req.output, formatQueryfile(lines));
  let explain: string[] | null = null;
  if (req.explain) {
    const ex = await dialect.explain(plan.slices[0].sql, { table: req.table, alias: template.alias });
    explain = [`access path of slice 1: ${ex.accessPath}`, ...ex.lines, ...ex.fullScans.map((f) => `full scan of inner table ${f.table} (rows≈${f.rows ?? '?'})`)];
  }
  let registered: number | null = null;
  if (req.runId !== null && deps.register) {
    registered = await deps.register(req.runId, lines.map((l) => ({ query: l.sql, target: l.target, lo: l.lo ?? null, hi: l.hi ?? null, predicate: l.predicate })), path.resolve(req.output));
  }
  return { plan, lines, file: req.output, registered, scn, explain, waveSummary };
}

// ── assort (standalone) ─────────────────────────────────────────────────────

/** `slices assort --input --output`: reorder an existing queryfile. */
export async function assortAction(input: string, output: string, waveSize: number): Promise<{ count: number; summary: string }> {
  let text: string;
  try { text = await fs.readFile(input, 'utf8'); } catch { throw new PlanningInputError(`✗ cannot read --input '${input}'`, 'input'); }
  const lines = parseQueryfile(text);
  if (lines.length === 0) throw new PlanningInputError(`✗ --input '${input}' holds no SQL|TARGET lines`, 'input');
  const order = assortOrder(lines.length, waveSize);
  await writeTextFile(output, formatQueryfile(order.map((i) => lines[i])));
  return { count: lines.length, summary: formatWaveSummary(waves(order, Math.min(waveSize, lines.length)), lines.length) };
}
