// POST /api/v1/flows/runs/:runId/cancel - cancel a flow run and its running jobs (operator)
import '@/app/_server/jobs'; // installs the job catalog the pipelines and flows engines validate through (a route's bundle holds only what it imports)
import { z } from 'zod';
import { apiHandler, principalLabel } from '@/lib/api';
import { cancelFlowRun } from '@/lib/flows';

export const POST = apiHandler({ role: 'operator', params: z.object({ runId: z.string().min(1).max(100) }) }, async ({ deps, params, principal }) => cancelFlowRun(deps.pool, params.runId, principalLabel(principal)));
