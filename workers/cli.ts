import { main } from '../lib/cli/main';

/**
 * The `tributary` executable's assembly: the CLI gets the job list (to
 * validate and enqueue) and the worker process (for `tributary worker`) from
 * here, so no layer below imports the worker. Both load on first use: help
 * and version start without them.
 */
export async function runCli(argv: string[]): Promise<void> {
  await main(argv, {
    loadJobs: async () => (await import('./jobs')).jobDefinitions,
    runWorker: async (opts) => (await import('./main')).runWorkerProcess(opts),
  });
}
