// POST /api/v1/flows/:id/pause - stop the flow's schedule firing (operator)
import { z } from 'zod';
import { apiHandler } from '@/lib/api';
import { setFlowEnabled } from '@/lib/flows';

export const POST = apiHandler({ role: 'operator', params: z.object({ id: z.string().min(1).max(200) }) }, async ({ deps, params }) => setFlowEnabled(deps.pool, params.id, false));
