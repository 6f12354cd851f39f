// POST /api/v1/models/query - queue a read-only SELECT on the models target as a models.query job: { sql, target? } → 202 { id }
import { apiHandler, json, principalLabel } from '@/lib/api';
import { enqueueJob } from '@/lib/jobs';
import { ModelsQueryPayload, readOnlyQuery } from '@/lib/models';
import { jobs } from '@/app/_server/jobs';


// The embedded ClickHouse belongs to the worker (one process per state folder),
// so the query runs there; the page polls GET /api/v1/jobs/:id for its result.
export const POST = apiHandler({ role: 'viewer', body: ModelsQueryPayload, maxBodyBytes: 128 * 1024 }, async ({ deps, body, principal }) => {
  readOnlyQuery(body.sql); // refuse a non-SELECT now, with a 400, rather than as a failed job
  const { runId } = await enqueueJob({ pool: deps.pool, jobs, env: deps.env }, { kind: 'models.query', params: body, createdBy: principalLabel(principal) });
  return json({ id: runId, kind: 'models.query', status: 'queued' }, 202, { Location: `/api/v1/jobs/${runId}` });
});
