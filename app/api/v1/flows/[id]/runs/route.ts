// GET /api/v1/flows/:id/runs - runs of a flow, newest first, with node states (?status=&limit=)
import { z } from 'zod';
import { apiHandler } from '@/app/_server/deps';
import { listFlowRuns, mustGetFlow } from '@/lib/flows';

const Query = z.object({
  status: z.enum(['queued', 'running', 'succeeded', 'failed', 'cancelled', 'skipped']).optional(),
  limit: z.coerce.number().int().min(1).max(500).optional(),
});

export const GET = apiHandler({ params: z.object({ id: z.string().min(1).max(200) }), query: Query }, async ({ deps, params, query }) => {
  const f = await mustGetFlow(deps.pool, params.id);
  return { runs: await listFlowRuns(deps.pool, { flowId: f.id, ...query }) };
});
