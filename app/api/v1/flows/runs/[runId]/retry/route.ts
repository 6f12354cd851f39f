// POST /api/v1/flows/runs/:runId/retry - re-run a failed or cancelled run from its failed nodes (operator)
import { z } from 'zod';
import { apiHandler } from '@/app/_server/deps';
import { principalLabel } from '@/lib/api';
import { assertMayRetryFlowRun } from '@/lib/api/presenters/job-role';
import { retryFlowRun } from '@/lib/flows';

export const POST = apiHandler({ role: 'operator', params: z.object({ runId: z.string().min(1).max(100) }) }, async ({ req, deps, params, principal }) => {
  await assertMayRetryFlowRun(deps.pool, deps, { principal, req }, params.runId);
  return retryFlowRun(deps.pool, params.runId, principalLabel(principal));
});
