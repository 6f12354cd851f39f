import { defineJob, type JobCheckDeps, type JobDefinition } from '../jobs/types';
import { planningJobs } from './planning/jobs';
import { slicesContext } from './job-context';
import { SlicePayload } from './run/slice-payload';
import { AssortRequest, BoardRequest, ClearRequest, ReconcileRequest, ResetRequest, RunRequest, StatusRequest } from './requests';

/**
 * Job kinds of the slices engine. Payloads are the actions' request schemas
 * (lib/slices/requests.ts: pure zod, strict, bounded, no URL or credential
 * fields); handlers import the engine lazily, so the web process validates
 * without loading it. Settings come from the worker's parsed environment
 * (`ctx.env`), the payload's fields overriding them exactly as CLI flags do.
 *
 * A payload naming a connection or run that does not exist is refused when it
 * is posted (`check`, from lib/slices/checks.ts), before anything is contacted.
 */

export const slicesRunJob = defineJob({
  kind: 'slices.run',
  description: 'Register (fresh) or resume a slice run and drive it to completion (Striim or native executor, chosen at its first start)',
  payload: RunRequest,
  async run(ctx, p) {
    const { executeRun } = await import('./execute/run');
    const { fanoutWanted } = await import('../jobs/fanout');
    const r = await executeRun(slicesContext(ctx, { fanout: await fanoutWanted(ctx) }), p);
    return { verdict: r.verdict, mode: r.mode, counts: r.counts, watermark: r.watermark, apiRetries: r.apiRetries, apiReauths: r.apiReauths };
  },
});

/** One slice of a fanned-out native `slices.run` (TRIBUTARY_FANOUT); queued by that run only. */
export const slicesSliceJob = defineJob({
  kind: 'slices.slice',
  description: 'One slice of a native slice run spread over workers (queued by its slices.run)',
  internal: true,
  payload: SlicePayload,
  run: (ctx, p) => import('./execute/slice').then((m) => m.executeSlice(ctx, p)),
});

export const slicesResetJob = defineJob({
  kind: 'slices.reset',
  description: 'Re-queue FAILED (optionally COMPLETED-FAILEDDROP / QUARANTINED) slices of a run as NEW',
  payload: ResetRequest,
  run: (ctx, p) => import('./execute/manage').then((m) => m.executeReset(slicesContext(ctx), p)),
});

export const slicesClearJob = defineJob({
  kind: 'slices.clear',
  description: 'Retire a run from the active view (history kept), or hard-delete its rows',
  role: 'admin',
  payload: ClearRequest,
  run: (ctx, p) => import('./execute/manage').then((m) => m.executeClear(slicesContext(ctx), p)),
});

export const slicesReconcileJob = defineJob({
  kind: 'slices.reconcile',
  description: 'Per-slice source COUNT(*) (AS OF SCN on Oracle) against the target, with deltas',
  role: 'viewer',
  payload: ReconcileRequest,
  run: (ctx, p) => import('./execute/manage').then((m) => m.executeReconcile(slicesContext(ctx), p)),
});

export const slicesStatusJob = defineJob({
  kind: 'slices.status',
  description: "A run's progress (counts by status, in-flight and failed slices), or every run",
  role: 'viewer',
  payload: StatusRequest,
  run: (ctx, p) => import('./execute/manage').then((m) => m.executeStatus(slicesContext(ctx), p)),
});

export const slicesBoardJob = defineJob({
  kind: 'slices.board',
  description: "A run's live board feed (progress, in-flight slices, recent completions)",
  role: 'viewer',
  payload: BoardRequest,
  run: (ctx, p) => import('./execute/manage').then((m) => m.executeBoard(slicesContext(ctx), p)),
});

export const slicesAssortJob = defineJob({
  kind: 'slices.assort',
  description: 'Reorder a queryfile under the data folder so each wave spans the whole range',
  payload: AssortRequest,
  async run(ctx, p) {
    const { executeAssort } = await import('./execute/planning');
    const out = await executeAssort(slicesContext(ctx), p);
    ctx.logger.info(out.summary);
    return out;
  },
});

/**
 * Every slices job kind: run / reset / clear / reconcile / status / board / assort here, probe / split from planning,
 * each with its enqueue-time check (lib/slices/checks.ts: connections, files, runs), loaded on first use.
 */
export const slicesJobs: JobDefinition[] = ([slicesRunJob, slicesSliceJob, slicesResetJob, slicesClearJob, slicesReconcileJob, slicesStatusJob, slicesBoardJob, slicesAssortJob, ...planningJobs] as JobDefinition[])
  .map((d) => ({
    ...d,
    check: async (deps: JobCheckDeps, payload: unknown) => {
      const { slicesChecks } = await import('./checks');
      await slicesChecks[d.kind]?.(deps, payload as Record<string, unknown>);
    },
  }));
