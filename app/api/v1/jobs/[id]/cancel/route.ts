// POST /api/v1/jobs/:id/cancel - cancel a queued run now, ask a running one to stop
import { z } from 'zod';
import { apiHandler } from '@/app/_server/deps';
import { auditActor } from '@/lib/api';
import { requestCancel } from '@/lib/jobs';

export const POST = apiHandler({ role: 'operator', params: z.object({ id: z.string() }) }, async ({ req, deps, params, principal }) => {
  return requestCancel(deps.pool, params.id, auditActor(principal, req));
});
