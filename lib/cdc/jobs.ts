import { defineJob } from '../jobs/types';
import { CdcRequest } from './request';

/**
 * `cdc.stream`: a branch's stream as a long-lived job on a worker (what `tributary cdc start`
 * runs in the foreground). One per branch: the slot admits one reader, so a second run for the
 * same branch waits for the slot (SLOT_RELEASE_WAIT_MS) and then fails naming the slot in use. A
 * run whose worker dies is queued again by the reaper (`resumeOnWorkerLoss`) and another worker
 * takes it over, resuming exactly from the recorded LSN. The engine is imported only when a
 * worker runs the job.
 */
export const cdcJobs = [
  defineJob({
    kind: 'cdc.stream',
    description: 'Stream a PostgreSQL branch set to `cdc: log` into the lake until cancelled (or `cdc stop`)',
    role: 'operator',
    payload: CdcRequest,
    resumeOnWorkerLoss: true,
    check: (deps, p) => import('./check').then((m) => m.checkCdcRequest(deps, p)),
    run: (ctx, p) => import('./job-run').then((m) => m.runStreamJob(ctx, p)),
  }),
];
