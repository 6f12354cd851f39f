// POST /api/v1/flows/:id/pause - stop the flow's schedule firing (operator)
import { z } from 'zod';
import { apiHandler } from '@/app/_server/deps';
import { auditActor } from '@/lib/api';
import { assertMayUseFlow } from '@/lib/api/presenters/job-role';
import { mustGetFlow, setFlowEnabled } from '@/lib/flows';

export const POST = apiHandler({ role: 'operator', params: z.object({ id: z.string().min(1).max(200) }) }, async ({ req, deps, params, principal }) => {
  const cur = await mustGetFlow(deps.pool, params.id);
  await assertMayUseFlow(deps.pool, deps, { principal, req }, { action: 'flow.pause', target: `flow:${cur.name}`, verb: 'pausing' }, { ref: cur.id });
  return setFlowEnabled(deps.pool, deps, cur.id, false, auditActor(principal, req));
});
