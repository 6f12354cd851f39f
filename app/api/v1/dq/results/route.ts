// GET /api/v1/dq/results - data-quality results, newest first (?run=dq-…&table=&branch=&status=&latest=true&limit=&before=)
import { z } from 'zod';
import { apiHandler } from '@/app/_server/deps';
import { listDqResults } from '@/lib/dq/results';

const Query = z.object({
  /** One run's rows (`dq-…`). */
  run: z.string().regex(/^dq-[A-Za-z0-9-]+$/, 'must be a dq-… run id').optional(),
  table: z.string().min(1).max(200).optional(),
  branch: z.string().min(1).max(200).optional(),
  status: z.enum(['OK', 'MISMATCH', 'ERROR', 'SKIPPED']).optional(),
  /** Only the latest run. (Default: false) */
  latest: z.enum(['true', 'false']).optional(),
  /** (Default: 200, at most 5000) */
  limit: z.coerce.number().int().min(1).max(5000).optional(),
  /** Rows with an id below this (paging). */
  before: z.coerce.number().int().min(1).optional(),
});

export const GET = apiHandler({ query: Query }, async ({ deps, query }) => {
  const results = await listDqResults(deps.pool, {
    runId: query.run, table: query.table, branch: query.branch, status: query.status,
    latest: query.latest === 'true', limit: query.limit, beforeId: query.before,
  });
  return { results };
});
