import type { Env } from '../config/env';
import type { JobRegistry } from './registry';

/**
 * The job kinds (and the environment their checks read) of this process, for
 * the few places deep inside the flows and pipelines engines that validate or
 * enqueue a job spec of any kind (a saved pipeline, a flow node). The process
 * entry points install it as they build their deps (`workers/main.ts`, the CLI's
 * `lib/cli/main.ts`, the web process's `app/_server/deps.ts`, which also hands
 * the registry to every route as `ServerDeps.jobs`), so the list still comes only from
 * the edges; it is a process-wide value rather than a parameter because a
 * flow run is advanced from many call paths (scheduler ticks, job completion,
 * API actions) that would all have to carry it. Everything else receives the
 * registry explicitly (`startWorker({ jobs })`, `enqueueJob({ jobs })`).
 */
export interface JobCatalog { jobs: JobRegistry; env: Env }

let installed: JobCatalog | undefined;

export function installJobCatalog(c: JobCatalog): void { installed = c; }

export function jobCatalog(): JobCatalog {
  if (!installed) throw new Error('jobs: no job catalog installed — a process entry point (workers/main.ts, lib/cli/main.ts, app/_server/deps.ts) installs it');
  return installed;
}
