import { main } from '../lib/cli/main';
import { jobDefinitions } from './jobs';
import { runWorkerProcess } from './main';

/**
 * The `tributary` executable's assembly: the CLI gets the job list (to
 * validate and enqueue) and the worker process (for `tributary worker`) from
 * here, so no layer below imports the worker.
 */
export async function runCli(argv: string[]): Promise<void> {
  await main(argv, { jobs: jobDefinitions, runWorker: runWorkerProcess });
}
