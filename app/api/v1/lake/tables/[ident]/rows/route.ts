// GET /api/v1/lake/tables/:ident/rows - the first rows of a table (?branch=&limit=, default 100, at most 1000); 64-bit integers and decimals as strings, dates ISO
import { z } from 'zod';
import { apiHandler } from '@/app/_server/deps';
import { previewLakeRows } from '@/lib/api/presenters/lake';
import { openLake } from '@/lib/lake';

const Params = z.object({ ident: z.string().regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)+$/, 'must be namespace.table') });
const Query = z.object({
  /** Only rows of this BRANCH_ID. (Default: every branch) */
  branch: z.string().min(1).max(200).optional(),
  /** (Default: 100, at most 1000) */
  limit: z.coerce.number().int().min(1).max(1000).optional(),
});

export const GET = apiHandler({ params: Params, query: Query }, async ({ deps, params, query }) => {
  return previewLakeRows(openLake({ pool: deps.pool, warehouse: deps.env.warehouse, s3: deps.env.s3 }), params.ident, { branch: query.branch, limit: query.limit });
});
