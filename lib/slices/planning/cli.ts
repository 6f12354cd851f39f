import type { Command } from 'commander';
import type pg from 'pg';
import { openCliContext, type CliContext, type CliEdge } from '../../cli/context';
import { recordCliRun } from '../../jobs/record-cli-run';
import type { Env } from '../../config/env';
import { isBuiltinName } from '../../connections';
import { AppError, exitCodeFor, isInputError } from '../../errors';
import { consoleSink, createLogger } from '../../log';
import { cliContext, urlConnections } from '../cli-support';
import { parseFlags, type SlicesContext } from '../execute/context';
import { executeAssort, executeProbe, executeSplit } from '../execute/planning';
import { AssortRequest, ProbeRequest, SplitRequest } from '../requests';

// Exit codes: 0 ok, 1 failure (source, database), 2 bad flag or template (exitCodeFor, from the error's code).

type Flags = Record<string, unknown>;

/** Run a command body; a bad flag (usage / validation error) prints its one-line message (no stack) and exits 2. */
async function guarded(body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (e) {
    if (!isInputError(e)) throw e;
    process.stderr.write(`${e.message}\n`);
    process.exitCode = exitCodeFor(e);
  }
}

/**
 * The command's context: Tributary's database only when the command needs it
 * (registering under a run, or a stored connection); a file-only split from
 * `--source-url` or the environment runs without it.
 */
async function planningContext(cli: CliEdge, flags: Flags, needDb: boolean, body: (ctx: SlicesContext) => Promise<void>): Promise<void> {
  const env = cli.settings;
  const { names, transient } = urlConnections(flags, env);
  if (!needDb && (names.connection || !flags.connection || isBuiltinName(String(flags.connection)))) {
    const logger = createLogger(consoleSink(), { level: env.LOG_LEVEL });
    const noDb = new Proxy({}, { get() { throw new AppError('fatal', 'slices: this command needs the Tributary database'); } }) as pg.Pool;
    return body({ pool: noDb, env, logger, signal: new AbortController().signal, local: true, transient, print: (l) => process.stdout.write(l + '\n') });
  }
  const ctx: CliContext = await openCliContext(cli);
  try { await body(cliContext(ctx, transient)); } finally { await ctx.close(); }
}

/** Request fields of a planning command: its flags, with the URL flag turned into a transient connection. */
function requestFlags(flags: Flags, env: Env): Flags {
  const { names } = urlConnections(flags, env);
  return { ...flags, ...names };
}

function addSourceOptions(c: Command): Command {
  return c
    .option('--source-engine <engine>', 'oracle | postgres (sqlserver | jdbc: not yet) (Default: SOURCE_DB_TYPE, else postgres when SOURCE_PG_HOST/--source-url is set, else oracle)')
    .option('--source-url <url>', 'PostgreSQL source as a postgres:// URL, local use only (Default: SLICES_SOURCE_URL, else built from SOURCE_PG_*)')
    .option('--connection <name>', "a source defined in Tributary's connections (oracle or postgres) (Default: env:source, from SOURCE_* / ORACLE_*)");
}

/**
 * `tributary slices probe | split | assort`: the planning half of seed 001
 * (§4 steps 6–8, §7, §8). Added to the `slices` command owned by the run
 * engine (lib/slices/cli.ts).
 */
export function registerPlanningCommands(slices: Command, cli: CliEdge): void {
  // The settings the CLI parsed at start.
  const env = cli.settings;
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
    const req = parseFlags(ProbeRequest, requestFlags(flags, env), 'argparse');
    await planningContext(cli, flags, true, async (ctx) => {
      const out = await recordCliRun(ctx.pool, { kind: 'slices.probe', params: req, logger: ctx.logger, level: env.LOG_LEVEL },
        (run) => executeProbe({ ...ctx, logger: run.logger }, req), (x) => ({ result: { file: x.file, id: x.id ?? null } }));
      process.stdout.write(flags.json ? JSON.stringify(out.recommendation, null, 2) + '\n' : `${out.panel}\n`);
      process.stderr.write(`recommendation saved to ${out.file}${out.id ? ` (slice_probe_recommendations id ${out.id})` : ''}\n`);
    });
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
    const req = parseFlags(SplitRequest, requestFlags(flags, env), 'argparse');
    const register = flags.register !== false;
    const needDb = register && (req.runId ?? env.UNIQUE_RUN_ID) !== undefined;
    await planningContext(cli, flags, needDb, async (ctx) => {
      const split = (c: typeof ctx) => executeSplit(c, { ...req, register });
      // Without the database (a queryfile only) there is nowhere to record a run.
      const out = needDb
        ? await recordCliRun(ctx.pool, { kind: 'slices.split', params: req, logger: ctx.logger, level: env.LOG_LEVEL },
          (run) => split({ ...ctx, logger: run.logger }), (x) => ({ result: { file: x.file, slices: x.lines.length, registered: x.registered, runId: x.runId ?? null } }))
        : await split(ctx);
      const w = (s: string) => process.stdout.write(s + '\n');
      if (out.scn) w(`snapshot: every slice reads AS OF SCN ${out.scn}`);
      w(`wrote ${out.lines.length} slices to ${out.file} (strategy ${out.plan.strategy}, ${out.plan.method})`);
      if (out.waveSummary) w(out.waveSummary);
      if (out.explain) for (const l of out.explain) w(l);
      w(out.registered !== null ? `registered ${out.registered} slices as NEW under run ${out.runId}` : 'not registered (pass --run-id N to register the slices)');
    });
  }));

  slices.command('assort')
    .description('Reorder a queryfile so each wave of CONCURRENT_APPS_MAX spans the whole range; prints the waves')
    .option('--input <file>', 'queryfile to read (Default: queryfile.txt)')
    .option('--output <file>', 'queryfile to write (Default: queryfile-assorted.txt)')
    .option('--wave-size <n>', 'apps per wave (Default: CONCURRENT_APPS_MAX, else 5)')
    .action((flags: Flags) => guarded(async () => {
        const req = parseFlags(AssortRequest, flags, 'argparse');
      await planningContext(cli, {}, false, async (ctx) => {
        const out = await executeAssort(ctx, req);
        process.stdout.write(`${out.summary}\nwrote ${out.count} lines to ${out.output}\n`);
      });
    }));
}
