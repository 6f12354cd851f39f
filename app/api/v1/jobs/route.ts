// GET /api/v1/jobs - list job runs, newest first (?status=&kind=&source=&limit=&before=)
// POST /api/v1/jobs - start a job: { kind, params } → 202 { id } (Idempotency-Key honoured; 429 when the queue is full)
import { z } from 'zod';
import { apiHandler } from '@/app/_server/deps';
import { accepted, auditActor, principalLabel } from '@/lib/api';
import { assertMayRunWork } from '@/lib/api/presenters/job-role';
import { enqueueJob, getJobRun, JOB_SOURCES, listJobRuns, queueLimits } from '@/lib/jobs';

const ListQuery = z.object({
  status: z.enum(['queued', 'running', 'succeeded', 'failed', 'cancelled']).optional(),
  kind: z.string().min(1).max(100).optional(),
  /** Only runs from this source: api, cli, flow or schedule. */
  source: z.enum(JOB_SOURCES).optional(),
  /** (Default: 50, at most 500) */
  limit: z.coerce.number().int().min(1).max(500).optional(),
  /** Only runs created before this instant (ISO 8601), for paging. */
  before: z.iso.datetime({ offset: true }).optional(),
});

const StartBody = z.strictObject({
  kind: z.string({ error: 'kind is required (a job kind such as system.check)' }).min(1, 'kind is required'),
  params: z.unknown().optional(),
  /** Accepted as a synonym of `params`. */
  payload: z.unknown().optional(),
});

export const GET = apiHandler({ query: ListQuery }, async ({ deps, query }) => {
  return { runs: await listJobRuns(deps.pool, query) };
});

// Any signed-in role may call it; each kind's own role (the table /job-kinds reports) decides.
export const POST = apiHandler({ role: 'viewer', body: StartBody, enqueues: true }, async ({ req, deps, body, principal, idempotency }) => {
  const params = body.params ?? body.payload ?? {};
  // The role of the work, not of the wrapper: `pipelines.run` of an admin-kind pipeline needs admin.
  await assertMayRunWork(deps.pool, deps, { principal, req }, body.kind, params, { action: 'job.start', target: `kind:${body.kind}` });
  const { runId, replayed } = await enqueueJob(deps, {
    kind: body.kind,
    params,
    createdBy: principalLabel(principal),
    audit: auditActor(principal, req),
    idempotency,
    admission: queueLimits(deps.env),
  });
  // A replay reports the run as it is now.
  const status = replayed ? (await getJobRun(deps.pool, runId, { logLimit: 0 }))?.status ?? 'queued' : 'queued';
  return accepted({ id: runId, kind: body.kind, status }, `/api/v1/jobs/${runId}`, replayed);
});
