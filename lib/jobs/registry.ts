import type { JobDefinition } from './types';
import { systemJobs } from './system-check';
import { etlJobs } from '../etl/jobs';
import { dqJobs } from '../dq/jobs';
import { slicesJobs } from '../slices/jobs';
import { flowsJobs } from '../flows/jobs';

/**
 * Every job kind the worker can run. Engines export their definitions from
 * `lib/<engine>/jobs.ts`; their handlers import engine code lazily so that the
 * web process, which only validates payloads here, stays light.
 */
const ALL: JobDefinition[] = [
  ...systemJobs,
  ...etlJobs,
  ...dqJobs,
  ...slicesJobs,
  ...flowsJobs,
];

const byKind = new Map(ALL.map((d) => [d.kind, d]));

export function getJobDefinition(kind: string): JobDefinition | undefined {
  return byKind.get(kind);
}

export function jobKinds(): { kind: string; description: string; role: 'admin' | 'operator' | 'viewer' }[] {
  return ALL.map((d) => ({ kind: d.kind, description: d.description, role: d.role ?? 'operator' }));
}
