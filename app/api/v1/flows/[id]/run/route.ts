// POST /api/v1/flows/:id/run - start a run now → 202 the flow run (operator; Idempotency-Key honoured; 429 when the queue is full)
import { z } from 'zod';
import { apiHandler } from '@/app/_server/deps';
import { accepted, principalLabel } from '@/lib/api';
import { assertMayUseFlow } from '@/lib/api/presenters/job-role';
import { queueLimits } from '@/lib/jobs';
import { mustGetFlow, startFlowRun } from '@/lib/flows';

export const POST = apiHandler({ role: 'operator', params: z.object({ id: z.string().min(1).max(200) }), enqueues: true }, async ({ req, deps, params, principal, idempotency }) => {
  const cur = await mustGetFlow(deps.pool, params.id);
  await assertMayUseFlow(deps.pool, deps, { principal, req }, { action: 'flow.run', target: `flow:${cur.name}`, verb: 'running' }, { ref: cur.id });
  const { replayed, ...run } = await startFlowRun(deps.pool, cur.id, principalLabel(principal), { idempotency, admission: queueLimits(deps.env) });
  return accepted(run, `/api/v1/flows/runs/${run.id}`, replayed);
});
