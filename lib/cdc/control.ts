import type pg from 'pg';
import type { Env } from '../config/env';
import { recordAudit, type AuditActor } from '../audit';
import { AppError } from '../errors';
import { enqueueJob, findIdempotentRun, requestCancel, type IdempotencyRequest, type JobRegistry, type QueueLimits } from '../jobs';
import type { CdcRequest } from './request';
import { readBranchState, setBranchStatus } from './state';

/** The branch's queued or running `cdc.stream` job runs. */
async function streamRuns(pool: pg.Pool, branch: string): Promise<{ id: string; status: string }[]> {
  return (await pool.query(`SELECT id, status FROM job_runs WHERE kind = 'cdc.stream' AND status IN ('queued', 'running') AND params->>'branch' = $1`, [branch])).rows;
}

async function mustBeSetUp(pool: pg.Pool, branch: string) {
  const st = await readBranchState(pool, branch);
  if (!st) throw new AppError('not_found', `cdc: branch ${branch} is not set up for streaming: run \`tributary cdc setup --branch ${branch}\` first`, { field: 'branch' });
  return st;
}

/**
 * Start the branch's stream as a `cdc.stream` job (the panel's Start, `POST /api/v1/cdc/:branch/start`):
 * refused while one is queued or running (the slot admits one reader), otherwise enqueued as
 * `POST /api/v1/jobs` would, with the payload's own validation and check.
 */
export async function startStreamJob(deps: { pool: pg.Pool; jobs: JobRegistry; env: Env }, branch: string, opts: Omit<CdcRequest, 'branch'>,
  by: { createdBy: string; audit: AuditActor; idempotency?: IdempotencyRequest; admission?: QueueLimits }): Promise<{ runId: string; replayed: boolean }> {
  await mustBeSetUp(deps.pool, branch);
  // a repeated request (same Idempotency-Key) answers its first run, which may be the one running now
  const prior = by.idempotency ? await findIdempotentRun(deps.pool, by.idempotency, 'job_run') : null;
  if (prior) return { runId: prior, replayed: true };
  const running = await streamRuns(deps.pool, branch);
  if (running.length) throw new AppError('conflict', `cdc: branch ${branch} has a stream ${running[0].status} already (job run ${running[0].id}): one stream per branch`);
  // the payload as a client would write it: the job's schema parses it again, and a number there means seconds
  const params = { branch, ...opts, ...(opts.flushInterval !== undefined ? { flushInterval: `${opts.flushInterval}ms` } : {}) };
  return enqueueJob(deps, { kind: 'cdc.stream', params, createdBy: by.createdBy, audit: by.audit, idempotency: by.idempotency, admission: by.admission });
}

/**
 * Stop the branch's stream (the panel's Stop, `POST /api/v1/cdc/:branch/stop`), keeping its slot:
 * the state says `stopped` (a running stream, job or foreground `cdc start`, reads it at its next
 * flush interval and stops after a last flush), and its queued or running job runs are cancelled
 * too, so one not yet started does not start and one whose worker died is not taken over.
 */
export async function stopStream(pool: pg.Pool, branch: string, audit: AuditActor): Promise<{ branch: string; status: 'stopped'; slot: string; cancelledRuns: string[] }> {
  const st = await mustBeSetUp(pool, branch);
  await setBranchStatus(pool, branch, 'stopped');
  const cancelled: string[] = [];
  for (const r of await streamRuns(pool, branch)) {
    try { await requestCancel(pool, r.id, audit); cancelled.push(r.id); } catch (e) {
      if (!(e instanceof AppError && e.code === 'conflict')) throw e; // it ended meanwhile
    }
  }
  await recordAudit(pool, { ...audit, action: 'cdc.stop', target: `cdc:${branch}`, before: { status: st.status }, after: { status: 'stopped', cancelledRuns: cancelled } });
  return { branch, status: 'stopped', slot: st.slot, cancelledRuns: cancelled };
}
