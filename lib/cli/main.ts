import { createRequire } from 'node:module';
import type { Command } from 'commander';
import { exitCodeFor } from '../errors';
import type { Env } from '../config/env';
import { createJobRegistry } from '../jobs/registry';
import type { JobDefinition } from '../jobs/types';
import type { CliEdge } from './context';
import { preloadPg } from './pg-preload';
import { versionText } from './version';

// commander through require: imported as ESM, Node first scans its CommonJS files for their exports
// (cjs-module-lexer), which costs more than loading them (31 ms against 18 ms on the bench machine):
// a tenth of `tributary --help`. The command modules' own imports then find it in require's cache.
const loadCommander = () => createRequire(import.meta.url)('commander') as typeof import('commander');

/** What the executable's entry point (`workers/cli.ts`) hands the CLI. */
export interface CliAssembly {
  /** Every job kind (validation and enqueueing from the command line), loaded when a command runs. */
  loadJobs(): Promise<readonly JobDefinition[]>;
  /** Run a worker process with the CLI's settings until SIGINT/SIGTERM (`tributary worker`). */
  runWorker(opts: { concurrency?: number; settings: Env }): Promise<void>;
}

/** One module of top-level commands: their names and descriptions (for help), and how to load them. */
export interface CommandModule {
  commands: readonly { name: string; description: string }[];
  /** Whether its commands validate or enqueue jobs: false skips loading every engine's job kinds (a faster start). (Default: true) */
  jobs?: false;
  load(): Promise<(program: Command, cli: CliEdge) => void>;
}

/**
 * Every sub-command, in one table: the only place in lib/ that knows every
 * engine. Engines export `register…Commands(program)` from `lib/<engine>/cli.ts`.
 * Only the module of the command being run is imported, so `tributary --help`
 * loads no engine; the names and descriptions here are checked against what
 * each module registers (main.test.ts).
 */
export const COMMANDS: readonly CommandModule[] = [
  {
    commands: [
      { name: 'serve', description: 'Start the panel and one worker (what `npm start` runs); embedded PostgreSQL unless DATABASE_URL is set' },
      { name: 'worker', description: 'Run a worker alone (start several, on several machines, against one database)' },
      { name: 'migrate', description: 'Apply pending database migrations (idempotent)' },
      { name: 'users', description: 'Manage panel users' },
      { name: 'tokens', description: 'Manage API tokens (bearer tokens for /api/v1)' },
    ],
    load: async () => (await import('./system-commands')).registerSystemCommands,
  },
  {
    commands: [{ name: 'db', description: 'The embedded PostgreSQL of the data folder: status, start, stop (CLI commands leave it running while they are used)' }],
    load: async () => (await import('./db-commands')).registerDbCommands,
    jobs: false,
  },
  {
    commands: [{ name: 'etl', description: 'Extract tables from every branch (Oracle/Postgres) into the Iceberg lake: INITIAL or INCREMENTAL (CDC)' }],
    load: async () => (await import('../etl/cli')).registerEtlCommands,
  },
  {
    commands: [{ name: 'cdc', description: 'Stream every change of PostgreSQL branches set to `cdc: log` from the write-ahead log into the lake' }],
    load: async () => (await import('../cdc/cli')).registerCdcCommands,
  },
  {
    commands: [{ name: 'connections', description: 'Branch and service connections (secrets encrypted at rest)' }],
    load: async () => (await import('../connections/cli')).registerConnectionsCommands,
  },
  {
    commands: [{ name: 'dq', description: 'Data-quality reconciliation: windowed row counts and row-hash diff per table × branch, narrowed to keys, with repair' }],
    load: async () => (await import('../dq/cli')).registerDqCommands,
  },
  {
    commands: [{ name: 'slices', description: 'parallel initial loads: one Striim app (or native copier) per slice' }],
    load: async () => (await import('../slices/cli')).registerSlicesCommands,
  },
  {
    commands: [{ name: 'lake', description: 'Iceberg lake: tables, snapshots, scans, imports and maintenance' }],
    load: async () => (await import('../lake-admin/cli')).registerLakeCommands,
    // its commands run the lake directly, none enqueues or validates a job: `lake list` need not load every engine
    jobs: false,
  },
  {
    commands: [{ name: 'models', description: 'SQL models over the lake, materialised in ClickHouse (dbt-style run / test / build)' }],
    load: async () => (await import('../models/cli')).registerModelsCommands,
  },
  {
    commands: [
      { name: 'flows', description: 'DAG flows of pipelines and jobs, with cron schedules in time zones and alert mail' },
      { name: 'pipelines', description: 'The pipeline library: saved job specs' },
    ],
    load: async () => (await import('../flows/cli')).registerFlowsCommands,
  },
];

/** The top-level command argv names (`tributary [-h] <cmd> …`, `tributary help <cmd>`), or null for none. */
export function commandNameOf(argv: readonly string[]): string | null {
  const args = argv.slice(2).filter((a) => !a.startsWith('-'));
  if (args[0] === 'help') return args[1] ?? null;
  return args[0] ?? null;
}

/** The `tributary` command line: one sub-command per engine, the named one loaded. */
export async function main(argv: string[], assembly: CliAssembly): Promise<void> {
  // `--version` alone prints what commander's .version() prints, without loading commander (issue #23: ≤ 1.5× node -e 0).
  if (argv.length === 3 && (argv[2] === '--version' || argv[2] === '-V')) {
    process.stdout.write(`${versionText()}\n`);
    return;
  }
  const { Command } = loadCommander();
  const program = new Command('tributary')
    .description('Tributary: many operational databases into one Iceberg lakehouse')
    .version(versionText(), '-V, --version', 'print the version and build')
    .showHelpAfterError()
    .exitOverride();
  const name = commandNameOf(argv);
  const wanted = COMMANDS.find((m) => m.commands.some((c) => c.name === name));
  try {
    let register: (() => void) | undefined;
    if (wanted) {
      preloadPg();
      // The CLI's edge: the settings are parsed here, once, and handed to the command with the job kinds.
      const [reg, jobs, { createCliEdge, parseCliSettings }] = await Promise.all([wanted.load(), wanted.jobs === false ? [] : assembly.loadJobs(), import('./context')]);
      const settings = parseCliSettings();
      const registry = createJobRegistry(jobs);
      const cli = createCliEdge({ settings, jobs: registry, runWorker: assembly.runWorker });
      register = () => reg(program, cli);
    }
    for (const m of COMMANDS) {
      if (m === wanted) register!();
      // The others appear in help (and in commander's "did you mean") by name and description alone.
      else for (const c of m.commands) program.command(c.name).description(c.description);
    }
    await program.parseAsync(argv);
  } catch (e) {
    const err = e as { code?: string; exitCode?: number; message?: string };
    if (err.code?.startsWith('commander.')) {
      // help and version exit 0; usage errors were already printed by commander
      process.exitCode = err.exitCode ?? 1;
      return;
    }
    process.stderr.write(`error: ${err.message ?? String(e)}\n`);
    process.exitCode = process.exitCode && process.exitCode !== 0 ? process.exitCode : exitCodeFor(e);
  }
}
