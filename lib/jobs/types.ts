import type { z } from 'zod';
import type pg from 'pg';
import type { Logger } from '../log';
import type { Env } from '../config/env';
import type { JobRegistry } from './registry';
import type { LineageDatasets, LineageJobType } from '../lineage';

/**
 * The job kinds of a process and the settings their checks read, as the
 * engines that validate or enqueue a job spec of any kind (a saved pipeline,
 * a flow node) take it: a parameter handed down from the edge, never a
 * process-wide value. A `JobContext`, the web process's `ServerDeps` and the
 * CLI's `CliContext` each carry both, so they are passed as they are.
 */
export interface JobCatalog { jobs: JobRegistry; env: Env }

/** What a job handler is handed by the worker (or by a test, or the CLI). */
export interface JobContext {
  /** The job run's id (job_runs.id). */
  runId: string;
  /**
   * Raw SQL pool on Tributary's own database (etl_meta, catalog, queue…). Jobs
   * use `pg` only: Prisma serves the panel's account models (docs/architecture.md,
   * "Two stores").
   */
  pool: pg.Pool;
  /** The job kinds this process knows (a flow node enqueues through it). */
  jobs: JobRegistry;
  /** Child logger whose lines are stored as the run's log. */
  logger: Logger;
  /** Aborted when the run is cancelled or the worker stops: stop at the next safe point. */
  signal: AbortSignal;
  /** Parsed process environment (data folder, warehouse…). */
  env: Env;
  /** Report progress: units done out of total (total may be updated). */
  progress(done: number, total?: number): void;
  /** The worker running this job (job_runs.worker_id). (Default: unset outside a worker) */
  workerId?: string;
  /**
   * Claim a queued run and run it in this process, inside this job's slot
   * (a coordinator running its own units when no other worker takes them).
   * Resolves false when the run was no longer queued or the worker is stopping.
   * (Default: unset outside a worker)
   */
  runInline?(runId: string): Promise<boolean>;
  /**
   * Report the datasets the run read and wrote (OpenLineage, lib/lineage); they go on the
   * run's COMPLETE or FAIL event. Unset when no lineage is configured: skip the work of
   * describing them then. (Default: unset)
   */
  reportLineage?(datasets: LineageDatasets): void;
}

/** What a payload check may use: Tributary's database and the parsed environment. */
export interface JobCheckDeps {
  pool: pg.Pool;
  env: Env;
}

/**
 * One job kind: a name, its payload schema (validated on enqueue and again on
 * claim) and the handler the worker runs. Engines export these from
 * `lib/<engine>/jobs.ts`; `lib/jobs/registry.ts` lists them.
 */
export interface JobDefinition<S extends z.ZodType = z.ZodType> {
  kind: string;
  description: string;
  /** Least role allowed to start it. (Default: operator) */
  role?: 'admin' | 'operator' | 'viewer';
  payload: S;
  /**
   * Started only by other jobs (a run's units): hidden from `/job-kinds` and
   * refused by `POST /jobs`. (Default: false)
   */
  internal?: true;
  /**
   * Checks that need configuration or the database (a table in tables.json, a
   * branch among connections, a run that exists), run when the job is posted —
   * not only when a worker claims it. Throw AppError('validation', …, { field:
   * 'params.tables[0]' }) naming the payload field. (Default: none)
   */
  check?(deps: JobCheckDeps, payload: z.infer<S>): Promise<void>;
  /**
   * Emit OpenLineage START / COMPLETE / FAIL events for this kind's runs, with this
   * `jobType` facet; the handler reports datasets through `ctx.reportLineage`. (Default: no events)
   */
  lineage?: { jobType: LineageJobType };
  /**
   * A run whose worker stops heartbeating (killed, machine lost) is queued again for another
   * worker instead of failed: for long-lived jobs that resume from their own recorded position
   * (a CDC stream), so a lost worker does not stop them; a run losing its worker right after
   * starting backs off and is failed after a few attempts (lib/jobs/reaper.ts). (Default: failed)
   */
  resumeOnWorkerLoss?: true;
  run(ctx: JobContext, payload: z.infer<S>): Promise<unknown>;
}

export function defineJob<S extends z.ZodType>(def: JobDefinition<S>): JobDefinition<S> {
  return def;
}
