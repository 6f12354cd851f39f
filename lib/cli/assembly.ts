import type { JobRegistry } from '../jobs/registry';

/** What the executable's entry point handed the CLI (set once by main()). */
export interface CliAssemblyState {
  jobs: JobRegistry;
  runWorker(opts: { concurrency?: number }): Promise<void>;
}

let assembly: CliAssemblyState | undefined;

/** Called by `main()` with what `workers/cli.ts` assembled. */
export function setCliAssembly(a: CliAssemblyState): void { assembly = a; }

/** The assembled job kinds and worker runner; fails loudly when main() did not run (a wiring bug). */
export function cliAssembly(): CliAssemblyState {
  if (!assembly) throw new Error('cli: no assembly — run the CLI through workers/cli.ts (bin/tributary.mjs)');
  return assembly;
}
