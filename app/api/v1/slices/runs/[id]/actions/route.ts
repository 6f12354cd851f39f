// POST /api/v1/slices/runs/:id/actions - start a board action on a run (run, reset, reconcile, clear) as its slices.* job → 202 { id, kind }
import { z } from 'zod';
import { apiHandler } from '@/app/_server/deps';
import { auditActor, json, principalLabel } from '@/lib/api';
import { roleAtLeast } from '@/lib/auth';
import { AppError } from '@/lib/errors';
import { enqueueJob } from '@/lib/jobs';
import { getRun } from '@/lib/slices';

const Params = z.object({ id: z.coerce.number().int().min(1).max(2_147_483_647) });
const Body = z.strictObject({
  /** run | reset | reconcile | clear: the `slices.<action>` job kind. */
  action: z.enum(['run', 'reset', 'reconcile', 'clear'], { error: 'must be run, reset, reconcile or clear' }),
  /** The job's payload fields (lib/slices/requests.ts) but `runId`, which is the path's. (Default: {}) */
  params: z.record(z.string(), z.unknown()).optional(),
});
const Response = z.object({ id: z.string(), kind: z.string(), status: z.literal('queued') });

// Board actions change a run (or contact its source and target): operators and up, whatever
// the kind's own least role; a kind needing more (slices.clear: admin) keeps its own.
export const POST = apiHandler({ role: 'operator', params: Params, body: Body, response: Response, status: 202 }, async ({ req, deps, params, body, principal }) => {
  const kind = `slices.${body.action}`;
  const least = deps.jobs.roleOf(kind);
  if (!roleAtLeast(principal.role, least)) throw new AppError('forbidden', `starting ${kind} needs the ${least} role; you are ${principal.role}`);
  if (body.params && 'runId' in body.params) throw new AppError('validation', 'params.runId: the run is the one in the path', { field: 'params.runId' });
  if (!(await getRun(deps.pool, params.id))) throw new AppError('not_found', `slice run ${params.id} not found`);
  const { runId } = await enqueueJob(deps, {
    kind, params: { ...body.params, runId: params.id }, createdBy: principalLabel(principal), audit: auditActor(principal, req),
  });
  return json({ id: runId, kind, status: 'queued' }, 202, { Location: `/api/v1/jobs/${runId}` });
});
