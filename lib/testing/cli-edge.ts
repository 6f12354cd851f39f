import { createCliEdge, parseCliSettings, type CliEdge } from '../cli/context';
import { createJobRegistry } from '../jobs/registry';
import type { JobDefinition } from '../jobs/types';

/**
 * A CLI edge as `main()` builds it, from settings the test writes (never
 * process.env), for tests that register commands on their own program. A
 * bad variable is the usage error `main()` reports (exit 2).
 * @param settings the environment's variables for this edge (Default: none set)
 * @param jobs the job kinds the commands see (Default: none)
 */
export function testCliEdge(settings: Record<string, string> = {}, jobs: readonly JobDefinition[] = []): CliEdge {
  return createCliEdge({
    settings: parseCliSettings({}, settings),
    jobs: createJobRegistry(jobs),
    runWorker: async () => { throw new Error('testing: this CLI edge runs no worker'); },
  });
}
