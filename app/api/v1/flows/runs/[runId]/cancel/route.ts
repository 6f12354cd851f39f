// POST /api/v1/flows/runs/:runId/cancel - cancel a flow run and its running jobs (operator)
import { z } from 'zod';
import { apiHandler } from '@/app/_server/deps';
import { principalLabel } from '@/lib/api';
import { cancelFlowRun } from '@/lib/flows';

export const POST = apiHandler({ role: 'operator', params: z.object({ runId: z.string().min(1).max(100) }) }, async ({ deps, params, principal }) => cancelFlowRun(deps.pool, params.runId, principalLabel(principal)));
