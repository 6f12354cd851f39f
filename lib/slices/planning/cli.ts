import type { Command } from 'commander';
import { openCliContext, type CliContext } from '../../cli/context';
import { parseEnv } from '../../config/env';
import { registerSlices } from '../run/register';
import { assortAction, parseProbeRequest, parseSplitRequest, probeAction, splitAction, tunable, type RegisterFn } from './actions';
import type { SourceDialect } from '../../sources';
import { describeSource, openSourceDialect, sourceFromConnectionName, sourceFromEnv, type SourceConfig } from './source';
import { AppError, exitCodeFor } from '../../errors';
import { PlanningInputError } from './validate';

/** Exit codes: 0 ok, 1 failure (source, database), 2 bad flag or template. */
const EXIT_USAGE = 2;

type Flags = Record<string, unknown>;

/** Run a command body; a bad flag prints its one-line message (no stack) and exits 2. */
async function guarded(body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (e) {
    // bad input, whether a flag (PlanningInputError) or the source settings (lib/connections, lib/sources: AppError usage/validation)
    if (e instanceof PlanningInputError || (e instanceof AppError && exitCodeFor(e) === EXIT_USAGE)) {
      process.stderr.write(`${e.message}\n`);
      process.exitCode = EXIT_USAGE;
      return;
    }
    throw e;
  }
}

function addSourceOptions(c: Command): Command {
  return c
    .option('--source-engine <engine>', 'oracle | postgres (sqlserver | jdbc: not yet) (Default: SOURCE_DB_TYPE, else postgres when SOURCE_PG_HOST/--source-url is set, else oracle)')
    .option('--source-url <url>', 'PostgreSQL source as a postgres:// URL (Default: SLICES_SOURCE_URL, else built from SOURCE_PG_*)')
    .option('--connection <name>', "a source defined in Tributary's connections (oracle or postgres)");
}

/** The source from flags/env, or null when it comes from --connection (needs the database). */
function sourceConfigFromFlags(flags: Flags): SourceConfig | null {
  if (flags.connection !== undefined) {
    if (flags.sourceUrl !== undefined) throw new PlanningInputError('✗ pass either --connection or --source-url, not both', 'connection');
    return null;
  }
  return sourceFromEnv(process.env, { engine: flags.sourceEngine as string | undefined, sourceUrl: flags.sourceUrl as string | undefined });
}

async function withSource<T>(ctx: CliContext | null, cfg: SourceConfig | null, flags: Flags, body: (d: SourceDialect) => Promise<T>): Promise<T> {
  let config = cfg;
  if (!config) {
    if (!ctx) throw new Error('slices: --connection needs the Tributary database');
    config = await sourceFromConnectionName(ctx.pool, String(flags.connection), { secret: ctx.env.TRIBUTARY_SECRET, dataDir: ctx.env.dataDir });
  }
  const logger = ctx?.logger;
  logger?.info('slices: source', { source: describeSource(config) });
  // the Instant Client setting (thick mode for Oracle 11g): from the context's parsed environment when there is one
  const dialect = await openSourceDialect(config, { logger, oracleClientLibDir: (ctx?.env ?? parseEnv()).ORACLE_CLIENT_LIB_DIR });
  try { return await body(dialect); } finally { await dialect.exec.close(); }
}

/**
 * `tributary slices probe | split | assort`: the planning half of seed 001
 * (§4 steps 6–8, §7, §8). Added to the `slices` command owned by the run
 * engine (lib/slices/cli.ts).
 */
export function registerPlanningCommands(slices: Command): void {
  addSourceOptions(
    slices.command('probe')
      .description('Race split strategies on bounded samples of your query; recommend strategy, chunk count and concurrency')
      .option('--query-file <file>', 'the SQL template, with ~SPLIT~')
      .option('--query <sql>', 'the SQL template inline')
      .option('--table <OWNER.TABLE>', 'driving / splitting table (required)')
      .option('--depth <depth>', 'lightweight | bakeoff | adaptive (Default: PROBE_DEPTH_DEFAULT, else bakeoff)')
      .option('--alias <alias>', 'driving-table alias (Default: detected from the query)')
      .option('--target-slice-seconds <n>', 'desired per-slice runtime; drives chunk count (Default: PROBE_TARGET_SLICE_SECONDS, else 600)')
      .option('--sample-rows <n>', 'row cap of every timing query (Default: PROBE_SAMPLE_ROWS, else 100000)')
      .option('--time-budget-seconds <n>', 'wall-clock cap of every timing query (Default: PROBE_TIME_BUDGET_SECONDS, else 20)')
      .option('--max-concurrency <n>', 'ceiling of the adaptive concurrency ramp (Default: PROBE_MAX_CONCURRENCY, else 32)')
      .option('--run-id <n>', 'run the recommendation belongs to; stored in <data>/runs/<n>/ (Default: UNIQUE_RUN_ID, else none)')
      .option('--output-dir <dir>', 'folder for probe_recommendation.json (Default: <data>/runs/<run-id>/, or <data>/runs/probe/)')
      .option('--json', 'print the recommendation as JSON instead of the panel'),
  ).action((flags: Flags) => guarded(async () => {
    const env = parseEnv();
    const req = await parseProbeRequest({ ...flags, runId: flags.runId ?? (process.env.UNIQUE_RUN_ID || undefined) }, process.env, env.dataDir);
    const cfg = sourceConfigFromFlags(flags);
    const ctx = await openCliContext();
    try {
      const out = await withSource(ctx, cfg, flags, (d) => probeAction(d, req, { pool: ctx.pool, logger: ctx.logger, signal: ctx.signal }));
      process.stdout.write(flags.json ? JSON.stringify(out.recommendation, null, 2) + '\n' : `${out.panel}\n`);
      process.stderr.write(`recommendation saved to ${out.file}${out.id ? ` (slice_probe_recommendations id ${out.id})` : ''}\n`);
    } finally { await ctx.close(); }
  }));

  addSourceOptions(
    slices.command('split')
      .description('Write the queryfile (SQL|TARGET per line) of disjoint, complete slices and register them under a run')
      .option('--query-file <file>', 'the SQL template, with ~SPLIT~')
      .option('--query <sql>', 'the SQL template inline')
      .option('--table <OWNER.TABLE>', 'driving table (required)')
      .option('--target <OWNER.TABLE>', 'target table written on each line (required)')
      .option('--strategy <s>', 'auto | rowid | column | partition; auto = partition when partitioned, else rowid (Default: auto)')
      .option('--column <col>', 'split column for --strategy column (numeric, date or timestamp; may be alias.col)')
      .option('--chunks <n>', 'number of slices (required for rowid / column)')
      .option('--alias <alias>', 'driving-table alias (Default: detected from the query)')
      .option('--subpartitions', 'one slice per subpartition / leaf partition (partition strategy)')
      .option('--assort', 'interleave so each wave of CONCURRENT_APPS_MAX spans the whole range; prints the waves')
      .option('--wave-size <n>', 'wave size for --assort (Default: CONCURRENT_APPS_MAX, else 5)')
      .option('--explain', 'print the access path of the first slice')
      .option('--as-of-scn <scn>', "Oracle: read every slice AS OF SCN <scn>; 'current' captures it now")
      .option('--sample-rows <n>', 'values sampled for column boundaries (Default: PROBE_SAMPLE_ROWS, else 100000)')
      .option('--run-id <n>', 'register the slices in the orchestration table under this run (Default: UNIQUE_RUN_ID; none = file only)')
      .option('--no-register', 'write the queryfile only')
      .option('--output <file>', 'queryfile to write (Default: queryfile.txt in the current directory)'),
  ).action((flags: Flags) => guarded(async () => {
    const req = await parseSplitRequest(flags, process.env);
    if (flags.register === false) req.runId = null;
    const cfg = sourceConfigFromFlags(flags);
    const needDb = req.runId !== null || cfg === null;
    const ctx = needDb ? await openCliContext() : null;
    try {
      const register: RegisterFn | undefined = ctx ? (runId, list, queryFile) => registerSlices(ctx.pool, { runId, slices: list, queryFile }) : undefined;
      const out = await withSource(ctx, cfg, flags, (d) => splitAction(d, req, { register, logger: ctx?.logger }));
      const w = (s: string) => process.stdout.write(s + '\n');
      if (out.scn) w(`snapshot: every slice reads AS OF SCN ${out.scn}`);
      w(`wrote ${out.lines.length} slices to ${out.file} (strategy ${out.plan.strategy}, ${out.plan.method})`);
      if (out.waveSummary) w(out.waveSummary);
      if (out.explain) for (const l of out.explain) w(l);
      w(out.registered !== null ? `registered ${out.registered} slices as NEW under run ${req.runId}` : 'not registered (pass --run-id N to register the slices)');
    } finally { await ctx?.close(); }
  }));

  slices.command('assort')
    .description('Reorder a queryfile so each wave of CONCURRENT_APPS_MAX spans the whole range; prints the waves')
    .option('--input <file>', 'queryfile to read (Default: queryfile.txt)')
    .option('--output <file>', 'queryfile to write (Default: queryfile-assorted.txt)')
    .option('--wave-size <n>', 'apps per wave (Default: CONCURRENT_APPS_MAX, else 5)')
    .action((flags: Flags) => guarded(async () => {
      const waveSize = tunable('wave-size', flags.waveSize, process.env, 'CONCURRENT_APPS_MAX', 5);
      const out = await assortAction(String(flags.input ?? 'queryfile.txt'), String(flags.output ?? 'queryfile-assorted.txt'), waveSize);
      process.stdout.write(`${out.summary}\nwrote ${out.count} lines to ${String(flags.output ?? 'queryfile-assorted.txt')}\n`);
    }));
}
