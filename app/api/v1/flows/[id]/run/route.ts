// POST /api/v1/flows/:id/run - start a run now → 202 the flow run (operator; Idempotency-Key honoured; 429 when the queue is full)
import { z } from 'zod';
import { accepted, apiHandler, principalLabel } from '@/lib/api';
import { queueLimits } from '@/lib/jobs';
import { startFlowRun } from '@/lib/flows';

export const POST = apiHandler({ role: 'operator', params: z.object({ id: z.string().min(1).max(200) }), enqueues: true }, async ({ deps, params, principal, idempotency }) => {
  const { replayed, ...run } = await startFlowRun(deps.pool, params.id, principalLabel(principal), { idempotency, admission: queueLimits(deps.env) });
  return accepted(run, `/api/v1/flows/runs/${run.id}`, replayed);
});
