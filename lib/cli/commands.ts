import type { Command } from 'commander';
import { registerSystemCommands } from './system-commands';
import { registerEtlCommands } from '../etl/cli';
import { registerConnectionsCommands } from '../connections/cli';
import { registerDqCommands } from '../dq/cli';
import { registerSlicesCommands } from '../slices/cli';
import { registerLakeCommands } from '../lake/cli';
import { registerFlowsCommands } from '../flows/cli';

/**
 * Every sub-command, in one list. Engines export `register…Commands(program)`
 * from `lib/<engine>/cli.ts`; add them here, one line each.
 */
export function registerCommands(program: Command): void {
  registerSystemCommands(program);
  registerEtlCommands(program);
  registerConnectionsCommands(program);
  registerDqCommands(program);
  registerSlicesCommands(program);
  registerLakeCommands(program);
  registerFlowsCommands(program);
}
