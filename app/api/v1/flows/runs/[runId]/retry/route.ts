// POST /api/v1/flows/runs/:runId/retry - re-run a failed or cancelled run from its failed nodes (operator)
import { z } from 'zod';
import { apiHandler, principalLabel } from '@/lib/api';
import { retryFlowRun } from '@/lib/flows';

export const POST = apiHandler({ role: 'operator', params: z.object({ runId: z.string().min(1).max(100) }) }, async ({ deps, params, principal }) => retryFlowRun(deps.pool, params.runId, principalLabel(principal)));
