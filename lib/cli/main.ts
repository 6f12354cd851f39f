import { Command } from 'commander';
import { exitCodeFor } from '../errors';
import { parseEnv } from '../config/env';
import { createJobRegistry, installJobCatalog, type JobDefinition } from '../jobs';
import { setCliAssembly } from './context';
import { registerSystemCommands } from './system-commands';
import { registerEtlCommands } from '../etl/cli';
import { registerConnectionsCommands } from '../connections/cli';
import { registerDqCommands } from '../dq/cli';
import { registerSlicesCommands } from '../slices/cli';
import { registerLakeCommands } from '../lake-admin/cli';
import { registerModelsCommands } from '../models/cli';
import { registerFlowsCommands } from '../flows/cli';

/** What the executable's entry point (`workers/cli.ts`) hands the CLI. */
export interface CliAssembly {
  /** Every job kind (validation and enqueueing from the command line). */
  jobs: readonly JobDefinition[];
  /** Run a worker process until SIGINT/SIGTERM (`tributary worker`). */
  runWorker(opts: { concurrency?: number }): Promise<void>;
}

/**
 * Every sub-command, in one list: the only place in lib/ that knows every
 * engine. Engines export `register…Commands(program)` from `lib/<engine>/cli.ts`.
 */
const COMMANDS: ((program: Command) => void)[] = [
  registerSystemCommands,
  registerEtlCommands,
  registerConnectionsCommands,
  registerDqCommands,
  registerSlicesCommands,
  registerLakeCommands,
  registerModelsCommands,
  registerFlowsCommands,
];

/** The `tributary` command line: one sub-command per engine. */
export async function main(argv: string[], assembly: CliAssembly): Promise<void> {
  const jobs = createJobRegistry(assembly.jobs);
  setCliAssembly({ jobs, runWorker: assembly.runWorker });
  installJobCatalog({ jobs, env: parseEnv() });
  const program = new Command('tributary')
    .description('Tributary: many operational databases into one Iceberg lakehouse')
    .showHelpAfterError()
    .exitOverride();
  for (const register of COMMANDS) register(program);
  try {
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
