// GET /api/v1/jobs/:id - one run: status, progress, timestamps, log lines (?afterLogId= for a live tail)
import { z } from 'zod';
import { apiHandler } from '@/app/_server/deps';
import { AppError } from '@/lib/errors';
import { getJobRun } from '@/lib/jobs';

const Query = z.object({
  /** Only log lines with a larger id. (Default: 0, all) */
  afterLogId: z.coerce.number().int().min(0).optional(),
  /** (Default: 1000, at most 5000) */
  logLimit: z.coerce.number().int().min(0).max(5000).optional(),
});

export const GET = apiHandler({ params: z.object({ id: z.string() }), query: Query }, async ({ deps, params, query }) => {
  const run = await getJobRun(deps.pool, params.id, query);
  if (!run) throw new AppError('not_found', `job run ${params.id} not found`);
  return run;
});
