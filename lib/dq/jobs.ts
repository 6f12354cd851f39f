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
    check: (deps, p) => import('./check').then((m) => m.checkDqRequest(deps, p)),
    run: (ctx, p) => import('./job-run').then((m) => m.runDqJob(ctx, p)),
  }),
];
