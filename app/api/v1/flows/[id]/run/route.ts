// POST /api/v1/flows/:id/run - start a run now → 202 the flow run (operator)
import { z } from 'zod';
import { apiHandler, json, principalLabel } from '@/lib/api';
import { startFlowRun } from '@/lib/flows';

export const POST = apiHandler({ role: 'operator', params: z.object({ id: z.string().min(1).max(200) }) }, async ({ deps, params, principal }) => {
  const run = await startFlowRun(deps.pool, params.id, principalLabel(principal));
  return json(run, 202, { Location: `/api/v1/flows/runs/${run.id}` });
});
