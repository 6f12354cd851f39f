// GET /api/v1/lake/tables/:ident - one table (namespace.table): schema, partition spec, properties, snapshots, rows per partition
import { z } from 'zod';
import { apiHandler } from '@/app/_server/deps';
import { describeLakeTable } from '@/lib/api/presenters/lake';
import { openLake } from '@/lib/lake';

const Params = z.object({ ident: z.string().regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)+$/, 'must be namespace.table') });

export const GET = apiHandler({ params: Params }, async ({ deps, params }) => {
  return describeLakeTable(openLake({ pool: deps.pool, warehouse: deps.env.warehouse, s3: deps.env.s3 }), params.ident);
});
