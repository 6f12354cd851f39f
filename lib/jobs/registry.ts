import type { JobDefinition } from './types';

/** What `GET /api/v1/job-kinds` and the panel's forms show of a kind. */
export interface JobKindInfo {
  kind: string;
  description: string;
  /** Least role allowed to start it — the same value `POST /api/v1/jobs` enforces. */
  role: 'admin' | 'operator' | 'viewer';
}

/** The job kinds one process knows, handed to it by its entry point. */
export interface JobRegistry {
  readonly all: readonly JobDefinition[];
  get(kind: string): JobDefinition | undefined;
  /**
   * The least role that may start a kind — the one value both `GET /job-kinds`
   * reports and `POST /jobs` enforces. An unknown kind needs operator (it is then
   * refused as unknown, without telling a viewer which kinds exist).
   */
  roleOf(kind: string): 'admin' | 'operator' | 'viewer';
  /** The kinds a user may start (internal kinds left out). */
  kinds(): JobKindInfo[];
}

/**
 * Build the registry from the list of job definitions that a process entry
 * point assembles (`workers/jobs.ts`), as graphile-worker takes its task list:
 * this layer never imports an engine.
 */
export function createJobRegistry(defs: readonly JobDefinition[]): JobRegistry {
  const byKind = new Map<string, JobDefinition>();
  for (const d of defs) {
    if (byKind.has(d.kind)) throw new Error(`jobs: job kind '${d.kind}' is defined twice`);
    byKind.set(d.kind, d);
  }
  return {
    all: defs,
    get: (kind) => byKind.get(kind),
    roleOf: (kind) => byKind.get(kind)?.role ?? 'operator',
    kinds: () => defs.filter((d) => !d.internal).map((d) => ({ kind: d.kind, description: d.description, role: d.role ?? 'operator' })),
  };
}
