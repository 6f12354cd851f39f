import { Command } from 'commander';
import { registerCommands } from './commands';

/** The `tributary` command line: one sub-command per engine. */
export async function main(argv: string[]): Promise<void> {
  const program = new Command('tributary')
    .description('Tributary: many operational databases into one Iceberg lakehouse')
    .showHelpAfterError()
    .exitOverride();
  registerCommands(program);
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
    process.exitCode = process.exitCode && process.exitCode !== 0 ? process.exitCode : 1;
  }
}
