// GET /api/v1/etl/control - etl_meta.etl_control: last outcome and watermarks per lake table × branch (?table=&branch=&namespace=)
import { z } from 'zod';
import { apiHandler } from '@/app/_server/deps';
import { listEtlControl } from '@/lib/etl';

const Query = z.object({
  table: z.string().min(1).max(200).optional(),
  branch: z.string().min(1).max(200).optional(),
  namespace: z.string().min(1).max(200).optional(),
});

export const GET = apiHandler({ query: Query }, async ({ deps, query }) => {
  return { control: await listEtlControl(deps.pool, query) };
});
