// GET /api/v1/dq/history - every check per table × branch for trend charts, and failed dq.run runs with their error (?table=&branch=&status=&since=&limit=)
import { z } from 'zod';
import { apiHandler } from '@/app/_server/deps';
import { dqHistory } from '@/lib/api/presenters/dq';

const Query = z.object({
  table: z.string().min(1).max(200).optional(),
  branch: z.string().min(1).max(200).optional(),
  status: z.enum(['OK', 'MISMATCH', 'ERROR', 'SKIPPED']).optional(),
  /** Only checks at or after this time (YYYY-MM-DD or ISO 8601). */
  since: z.string().refine((v) => /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(v) && !Number.isNaN(Date.parse(v)), 'must be a date (YYYY-MM-DD) or an ISO 8601 time').optional(),
  /** (Default: 2000, at most 5000) */
  limit: z.coerce.number().int().min(1).max(5000).optional(),
});

export const GET = apiHandler({ query: Query }, async ({ deps, query }) => dqHistory(deps.pool, query));
