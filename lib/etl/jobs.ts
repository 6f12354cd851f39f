import { defineJob } from '../jobs/types';
import { EtlRequest } from './request';
import { EtlUnitPayload } from './unit-payload';

/**
 * `etl.run`: the payload is the CLI's request (lib/etl/request.ts, pure zod);
 * the engine is imported only when a worker runs the job, so validating a
 * payload in the web process loads no engine.
 */
export const etlJobs = [
  defineJob({
    kind: 'etl.run',
    description: 'Multi-branch extract/load into the lake (INITIAL or INCREMENTAL)',
    role: 'operator',
    payload: EtlRequest,
    lineage: { jobType: 'ETL' },
    check: (deps, p) => import('./check').then((m) => m.checkEtlRequest(deps, p)),
    run: (ctx, p) => import('./job-run').then((m) => m.runEtlJob(ctx, p)),
  }),
  defineJob({
    kind: 'etl.unit',
    description: 'One table × branch extraction of a fanned-out ETL run (queued by its etl.run)',
    role: 'operator',
    internal: true,
    payload: EtlUnitPayload,
    run: (ctx, p) => import('./unit-run').then((m) => m.runEtlUnitJob(ctx, p)),
  }),
];
