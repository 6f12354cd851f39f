import { defineJob } from '../jobs/types';
import { DqRequest } from './request';

/**
 * `dq.run`: the payload is the CLI's request (lib/dq/request.ts, pure zod);
 * the engine is imported only when a worker runs the job.
 */
export const dqJobs = [
  defineJob({
    kind: 'dq.run',
    description: 'Data-quality reconciliation of the lake against the sources (row counts + row hashes), optionally repairing',
    role: 'operator',
    payload: DqRequest,
    lineage: { jobType: 'DQ' },
    async check(deps, p) {
      const { checkDqRequest } = await import('./check');
      await checkDqRequest(deps, p);
    },
    async run(ctx, p) {
      const { runDqJob } = await import('./job-run');
      return runDqJob(ctx, p);
    },
  }),
];
