import type { Command } from 'commander';

/**
 * Every sub-command, in one list. Engines export `register…Commands(program)`
 * from `lib/<engine>/cli.ts`; add them here.
 */
export function registerCommands(program: Command): void {
  void program;
}
