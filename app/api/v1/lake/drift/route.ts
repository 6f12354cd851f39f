// GET /api/v1/lake/drift - schema drift recorded by ETL runs, newest first (?table=&limit=)
import { z } from 'zod';
import { apiHandler } from '@/app/_server/deps';
import { schemaDriftHistory } from '@/lib/api/presenters/lake';

const Query = z.object({
  /** One lake table (its ETL name, e.g. `orders`). (Default: all) */
  table: z.string().min(1).max(200).optional(),
  /** (Default: 200, at most 1000) */
  limit: z.coerce.number().int().min(1).max(1000).optional(),
});

export const GET = apiHandler({ query: Query }, async ({ deps, query }) => ({ drift: await schemaDriftHistory(deps.pool, query) }));
