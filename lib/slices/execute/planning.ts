import path from 'node:path';
import { registerSlices } from '../run/register';
import { assortAction, parseProbeRequest, parseSplitRequest, probeAction, splitAction, type ProbeOutcome, type SplitOutcome } from '../planning/actions';
import { describeSource, openSourceDialect, type SourceConfig } from '../planning/source';
import { runFolder } from '../planning/store-recommendation';
import { planningError } from '../planning/validate';
import type { SourceDialect } from '../../sources';
import type { AssortRequest, ProbeRequestInput, SplitRequestInput } from '../requests';
import { fieldName, readFileOf, sourceOf, styleOf, writePathOf, type SlicesContext } from './context';

/**
 * The planning tunables' environment defaults (PROBE_*, CONCURRENT_APPS_MAX,
 * UNIQUE_RUN_ID), from the parsed environment, as the planning parsers take them.
 */
function planningEnv(ctx: SlicesContext): Record<string, string | undefined> {
  const e = ctx.env;
  const s = (v: unknown) => (v === undefined ? undefined : String(v));
  return {
    PROBE_DEPTH_DEFAULT: e.PROBE_DEPTH_DEFAULT, PROBE_SAMPLE_ROWS: s(e.PROBE_SAMPLE_ROWS), PROBE_TIME_BUDGET_SECONDS: s(e.PROBE_TIME_BUDGET_SECONDS),
    PROBE_TARGET_SLICE_SECONDS: s(e.PROBE_TARGET_SLICE_SECONDS), PROBE_MAX_CONCURRENCY: s(e.PROBE_MAX_CONCURRENCY),
    CONCURRENT_APPS_MAX: s(e.CONCURRENT_APPS_MAX), UNIQUE_RUN_ID: s(e.UNIQUE_RUN_ID),
  };
}

/** A template given as a file: read it here (data-folder rule for jobs), then hand the text on. */
async function withTemplate(ctx: SlicesContext, r: { query?: string; queryFile?: string }): Promise<{ query?: string; queryFile?: string; queryFileShown?: string }> {
  if (r.queryFile && r.query !== undefined) throw planningError(styleOf(ctx), `pass either ${fieldName(ctx, 'queryFile')} or ${fieldName(ctx, 'query')}, not both`, 'query');
  if (!r.queryFile) return { query: r.query };
  const f = await readFileOf(ctx, r.queryFile, 'queryFile');
  return { query: f.text, queryFileShown: r.queryFile };
}

async function withSource<T>(ctx: SlicesContext, r: { connection?: string; sourceEngine?: string }, body: (d: SourceDialect) => Promise<T>): Promise<T> {
  const cfg: SourceConfig | null = await sourceOf(ctx, r.connection);
  if (!cfg) {
    const e = ctx.env;
    const engine = r.sourceEngine ?? e.SOURCE_DB_TYPE ?? (e.SLICES_SOURCE_URL || e.SOURCE_PG_HOST ? 'postgres' : 'oracle');
    const n = (f: string) => fieldName(ctx, f);
    throw planningError(styleOf(ctx), engine === 'oracle'
      ? `no Oracle source: set ORACLE_DSN (or ORACLE_HOST + ORACLE_SERVICE), ORACLE_USER and ORACLE_PASSWORD (or pass ${n('connection')} / ${n('sourceEngine')} postgres)`
      : `no PostgreSQL source: set SOURCE_PG_HOST, SOURCE_PG_DATABASE and SOURCE_PG_USER (or pass ${n('sourceUrl')} / ${n('connection')})`, 'connection');
  }
  if (r.sourceEngine && r.sourceEngine !== cfg.kind) {
    if (r.sourceEngine === 'sqlserver' || r.sourceEngine === 'jdbc') throw planningError(styleOf(ctx), `source engine '${r.sourceEngine}' is not supported yet for probe/split (oracle and postgres are)`, 'sourceEngine');
    throw planningError(styleOf(ctx), `${fieldName(ctx, 'sourceEngine')} ${r.sourceEngine} does not match the source (a ${cfg.kind} connection)`, 'sourceEngine');
  }
  ctx.logger.info('slices: source', { source: describeSource(cfg) });
  const dialect = await openSourceDialect(cfg, { logger: ctx.logger });
  try { return await body(dialect); } finally { await dialect.exec.close(); }
}

/** `slices probe` / `slices.probe`: race split strategies on samples; keep the recommendation. */
export async function executeProbe(ctx: SlicesContext, r: ProbeRequestInput): Promise<ProbeOutcome> {
  const t = await withTemplate(ctx, r);
  const req = await parseProbeRequest({ ...r, ...t, queryFile: undefined, runId: r.runId ?? ctx.env.UNIQUE_RUN_ID }, planningEnv(ctx), ctx.env.dataDir, styleOf(ctx));
  req.queryFile = t.queryFileShown ?? null;
  if (r.outputDir) req.outputDir = await writePathOf(ctx, r.outputDir, 'outputDir');
  return withSource(ctx, r, (d) => probeAction(d, req, { pool: ctx.pool, logger: ctx.logger, signal: ctx.signal }));
}

/**
 * `slices split` / `slices.split`: write the queryfile and register the slices
 * under the run. A job's queryfile goes to `<data>/runs/<runId>/queryfile.txt`
 * unless it names another path under the data folder.
 */
export async function executeSplit(ctx: SlicesContext, r: SplitRequestInput & { register?: boolean }): Promise<SplitOutcome & { runId: number | null }> {
  const t = await withTemplate(ctx, r);
  const runId = r.register === false ? undefined : r.runId ?? ctx.env.UNIQUE_RUN_ID;
  const output = r.output ? await writePathOf(ctx, r.output, 'output')
    : ctx.local ? undefined : runId ? path.join(runFolder(ctx.env.dataDir, runId), 'queryfile.txt') : path.join(ctx.env.dataDir, 'runs', 'split', 'queryfile.txt');
  const req = await parseSplitRequest({ ...r, ...t, queryFile: undefined, runId, output }, planningEnv(ctx), styleOf(ctx));
  req.queryFile = t.queryFileShown ?? null;
  if (r.register === false) req.runId = null;
  const out = await withSource(ctx, r, (d) => splitAction(d, req, {
    logger: ctx.logger,
    register: (id, slices, queryFile) => registerSlices(ctx.pool, { runId: id, slices, queryFile }),
  }));
  return { ...out, runId: req.runId };
}

/** `slices assort` / `slices.assort`: reorder a queryfile so each wave spans the whole range. */
export async function executeAssort(ctx: SlicesContext, r: AssortRequest): Promise<{ count: number; summary: string; output: string }> {
  const input = ctx.local ? r.input ?? 'queryfile.txt' : (await readFileOf(ctx, r.input ?? 'queryfile.txt', 'input')).path;
  const output = await writePathOf(ctx, r.output ?? 'queryfile-assorted.txt', 'output');
  const waveSize = r.waveSize ?? ctx.env.CONCURRENT_APPS_MAX ?? 5;
  return { ...(await assortAction(input, output, waveSize)), output: r.output ?? 'queryfile-assorted.txt' };
}
