import type { JobDefinition } from './types';
import { systemJobs } from './system-check';
import { etlJobs } from '../etl/jobs';
import { dqJobs } from '../dq/jobs';
import { slicesJobs } from '../slices/jobs';

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
];

const byKind = new Map(ALL.map((d) => [d.kind, d]));

export function getJobDefinition(kind: string): JobDefinition | undefined {
  return byKind.get(kind);
}

/**
 * The least role that may start a kind — the one table both `GET /job-kinds`
 * reports and `POST /jobs` enforces. An unknown kind needs operator (it is
 * then refused as unknown, without telling a viewer which kinds exist).
 */
export function jobRole(kind: string): 'admin' | 'operator' | 'viewer' {
  return byKind.get(kind)?.role ?? 'operator';
}

export function jobKinds(): { kind: string; description: string; role: 'admin' | 'operator' | 'viewer' }[] {
  return ALL.map((d) => ({ kind: d.kind, description: d.description, role: jobRole(d.kind) }));
}
