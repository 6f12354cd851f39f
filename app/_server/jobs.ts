import { parseEnv } from '@/lib/config/env';
import { createJobRegistry, installJobCatalog } from '@/lib/jobs';
import { jobDefinitions } from '@/workers/jobs';

/**
 * The job kinds the web process validates payloads against. The definitions'
 * handlers load their engines lazily, so this loads no engine.
 */
export const jobs = createJobRegistry(jobDefinitions);

// The flows and pipelines engines validate and enqueue job specs through the process's catalog.
installJobCatalog({ jobs, env: parseEnv() });
