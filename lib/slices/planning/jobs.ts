import { defineJob } from '../../jobs/types';
import { slicesContext } from '../job-context';
import { ProbeRequest, SplitRequest } from '../requests';

/** Job kinds of the planning half: payloads are the shared request schemas; the engine loads lazily. */
export const probeJob = defineJob({
  kind: 'slices.probe',
  description: 'Race split strategies on bounded samples and store the recommendation',
  payload: ProbeRequest,
  async run(ctx, p) {
    const { executeProbe } = await import('../execute/planning');
    ctx.progress(0, 1);
    const out = await executeProbe(slicesContext(ctx), p);
    ctx.logger.info(out.panel);
    ctx.progress(1, 1);
    return { file: out.file, id: out.id, recommendation: out.recommendation };
  },
});

export const splitJob = defineJob({
  kind: 'slices.split',
  description: 'Write the queryfile of disjoint slices and register them under a run',
  // A job always registers its slices: the queryfile alone would sit on the worker.
  payload: SplitRequest.required({ runId: true }),
  async run(ctx, p) {
    const { executeSplit } = await import('../execute/planning');
    const out = await executeSplit(slicesContext(ctx), p);
    if (out.waveSummary) ctx.logger.info(out.waveSummary);
    ctx.progress(out.lines.length, out.lines.length);
    return { file: out.file, slices: out.lines.length, strategy: out.plan.strategy, method: out.plan.method, registered: out.registered, scn: out.scn };
  },
});

export const planningJobs = [probeJob, splitJob];
