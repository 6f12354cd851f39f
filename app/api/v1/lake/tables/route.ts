// GET /api/v1/lake/tables - every lake table (namespace.table) with its current snapshot and record count (?namespace=)
import { z } from 'zod';
import { apiHandler } from '@/app/_server/deps';
import { listLakeTables } from '@/lib/api/presenters/lake';
import { openLake } from '@/lib/lake';

const Query = z.object({ namespace: z.string().regex(/^[A-Za-z0-9_]+$/, 'letters, digits and _ only').optional() });

export const GET = apiHandler({ query: Query }, async ({ deps, query }) => {
  const lake = openLake({ pool: deps.pool, warehouse: deps.env.warehouse, s3: deps.env.s3 });
  const tables = await listLakeTables(lake);
  return { warehouse: deps.env.warehouse, tables: query.namespace ? tables.filter((t) => t.namespace === query.namespace) : tables };
});
