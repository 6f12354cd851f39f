// POST /api/v1/flows/:id/run - start a run now → 202 the flow run (operator)
import { z } from 'zod';
import { apiHandler, json, principalLabel } from '@/lib/api';
import { assertMayUseFlow } from '@/lib/api/presenters/job-role';
import { mustGetFlow, startFlowRun } from '@/lib/flows';

export const POST = apiHandler({ role: 'operator', params: z.object({ id: z.string().min(1).max(200) }) }, async ({ req, deps, params, principal }) => {
  const cur = await mustGetFlow(deps.pool, params.id);
  await assertMayUseFlow(deps.pool, { principal, req }, { action: 'flow.run', target: `flow:${cur.name}`, verb: 'running' }, { ref: cur.id });
  const run = await startFlowRun(deps.pool, cur.id, principalLabel(principal));
  return json(run, 202, { Location: `/api/v1/flows/runs/${run.id}` });
});
