// GET /api/v1/models/results - model and test outcomes, newest first, with SQL, errors and failing rows (?runId=&node=&limit=)
import { z } from 'zod';
import { apiHandler } from '@/app/_server/deps';
import { listResults } from '@/lib/models';

const Query = z.object({
  runId: z.string().min(1).max(100).optional(),
  node: z.string().min(1).max(300).optional(),
  /** (Default: 200, at most 1000) */
  limit: z.coerce.number().int().min(1).max(1000).optional(),
});

export const GET = apiHandler({ query: Query }, async ({ deps, query }) => ({ results: await listResults(deps.pool, query) }));
