// GET /api/v1/etl/runs - etl_meta.etl_run_log, newest first (?pipeline_run_id=&table=&branch=&namespace=&status=&limit=)
import { z } from 'zod';
import { apiHandler } from '@/app/_server/deps';
import { listEtlRuns } from '@/lib/etl';

const Query = z.object({
  pipeline_run_id: z.string().min(1).max(200).optional(),
  table: z.string().min(1).max(200).optional(),
  branch: z.string().min(1).max(200).optional(),
  namespace: z.string().min(1).max(200).optional(),
  status: z.enum(['SUCCESS', 'FAILED', 'REFUSED']).optional(),
  /** (Default: 200, at most 5000) */
  limit: z.coerce.number().int().min(1).max(5000).optional(),
});

export const GET = apiHandler({ query: Query }, async ({ deps, query }) => {
  return {
    runs: await listEtlRuns(deps.pool, { runId: query.pipeline_run_id, table: query.table, branch: query.branch, namespace: query.namespace, status: query.status, limit: query.limit }),
  };
});
