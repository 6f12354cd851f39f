import { createJobRegistry } from '@/lib/jobs';
import { jobDefinitions } from '@/workers/jobs';

/**
 * The job kinds the web process validates payloads against. The definitions'
 * handlers load their engines lazily, so this loads no engine.
 */
export const jobs = createJobRegistry(jobDefinitions);
