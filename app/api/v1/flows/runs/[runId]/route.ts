// GET /api/v1/flows/runs/:runId - one flow run: nodes (status, timings, job run), its log (?after= log id)
import { z } from 'zod';
import { apiHandler } from '@/app/_server/deps';
import { AppError } from '@/lib/errors';
import { getFlowRun } from '@/lib/flows';

export const GET = apiHandler({ params: z.object({ runId: z.string().min(1).max(100) }), query: z.object({ after: z.coerce.number().int().min(0).optional() }) }, async ({ deps, params, query }) => {
  const r = await getFlowRun(deps.pool, params.runId, { afterLogId: query.after });
  if (!r) throw new AppError('not_found', `flows: no flow run '${params.runId}'`);
  return r;
});
