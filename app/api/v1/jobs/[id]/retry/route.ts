// POST /api/v1/jobs/:id/retry - queue a new run with a finished run's kind and parameters (validated again) → 202 { id }
import { z } from 'zod';
import { apiHandler } from '@/app/_server/deps';
import { auditActor, json, principalLabel } from '@/lib/api';
import { assertMayRunWork } from '@/lib/api/presenters/job-role';
import { retryJobRun, retryableRun } from '@/lib/jobs';

// Any signed-in role may call it; the kind's own role decides, as for POST /jobs.
export const POST = apiHandler({ role: 'viewer', params: z.object({ id: z.string() }), status: 202, response: z.object({ id: z.string(), kind: z.string(), status: z.literal('queued'), retryOf: z.string() }) }, async ({ req, deps, params, principal }) => {
  const { kind, params: runParams } = await retryableRun(deps.pool, params.id);
  await assertMayRunWork(deps.pool, deps, { principal, req }, kind, runParams, { action: 'job.retry', target: `job:${params.id}`, verb: 'retrying' });
  const { runId } = await retryJobRun(deps, params.id, {
    createdBy: principalLabel(principal),
    audit: auditActor(principal, req),
  });
  return json({ id: runId, kind, status: 'queued', retryOf: params.id }, 202, { Location: `/api/v1/jobs/${runId}` });
});
