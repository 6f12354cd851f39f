// GET /api/v1/jobs/:id/units - the units a fanned-out run spread over workers: each attempt with its worker, status and times
import { z } from 'zod';
import { apiHandler } from '@/app/_server/deps';
import { AppError } from '@/lib/errors';
import { getJobRun, listRunUnits } from '@/lib/jobs';

export const GET = apiHandler({ params: z.object({ id: z.string() }) }, async ({ deps, params }) => {
  const run = await getJobRun(deps.pool, params.id, { logLimit: 0 });
  if (!run) throw new AppError('not_found', `job run ${params.id} not found`);
  return { units: await listRunUnits(deps.pool, params.id) };
});
