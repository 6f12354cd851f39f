import type { JobContext } from '../jobs/types';
import type { SlicesContext } from './execute/context';

/** A job's context as the slices actions take it: paths under the data folder, no CLI-transient connections; `fanout` when the caller decided (lib/jobs/fanout.ts `fanoutWanted`). */
export function slicesContext(ctx: JobContext, opts: { fanout?: boolean } = {}): SlicesContext {
  return {
    pool: ctx.pool, env: ctx.env, logger: ctx.logger, signal: ctx.signal, progress: ctx.progress, print: (l) => ctx.logger.info(l), local: false,
    fanout: opts.fanout ? { jobs: ctx.jobs, parentRunId: ctx.runId, runInline: ctx.runInline } : undefined,
  };
}
