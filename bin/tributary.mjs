#!/usr/bin/env node
// Entry point of the `tributary` CLI. Runs the compiled bundle (dist/cli, built at
// install and by `tributary serve`) when it matches the sources; otherwise, e.g.
// while a developer edits lib/, the TypeScript sources through tsx — never stale code.
import { freshCliEntry, freshCliEntryForHelp } from '../lib/cli/cli-build.mjs';

// Help and version alone run only the entry chunk: checking its few sources is enough (and fast).
const args = process.argv.slice(2);
const helpOrVersion = args.length === 0 || (args.length === 1 && ['--help', '-h', '--version', '-V'].includes(args[0]));
const entry = process.env.TRIBUTARY_CLI_SOURCES === '1' ? null : (helpOrVersion && freshCliEntryForHelp()) || freshCliEntry();
let runCli;
if (entry) {
  ({ runCli } = await import(entry));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ runCli } = await import('../workers/cli.ts'));
}
await runCli(process.argv);
