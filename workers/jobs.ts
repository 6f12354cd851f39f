import type { JobDefinition } from '../lib/jobs/types';
import { systemJobs } from '../lib/jobs/system-check';
import { etlJobs } from '../lib/etl/jobs';
import { dqJobs } from '../lib/dq/jobs';
import { slicesJobs } from '../lib/slices/jobs';
import { lakeJobs } from '../lib/lake-admin/jobs';
import { modelsJobs } from '../lib/models/jobs';
import { flowsJobs } from '../lib/flows/jobs';
import { connectionsJobs } from '../lib/connections/jobs';
import { cdcJobs } from '../lib/cdc/jobs';

/**
 * Every job kind, in one list: the worker runs them, the web process and the
 * CLI validate payloads against them. Each engine's `jobs.ts` holds pure
 * payload schemas and handlers that import the engine lazily, so loading this
 * list loads no engine. Add an engine's definitions here, one line each.
 */
export const jobDefinitions: readonly JobDefinition[] = [
  ...systemJobs,
  ...etlJobs,
  ...dqJobs,
  ...slicesJobs,
  ...lakeJobs,
  ...modelsJobs,
  ...flowsJobs,
  ...connectionsJobs,
  ...cdcJobs,
];
