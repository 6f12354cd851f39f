// POST /api/v1/models/query - run a SELECT on the models target as a models.query job and answer its outcome: { sql, target? }, ?wait=<s> → 200 { id, status, result } | 400 (refused: names the function or table) | 202 { id } (still running)
import { z } from 'zod';
import { apiHandler } from '@/app/_server/deps';
import { json, principalLabel } from '@/lib/api';
import { AppError } from '@/lib/errors';
import { enqueueJob, waitForJobRun } from '@/lib/jobs';
import { ModelsQueryPayload, QUERY_LIMITS } from '@/lib/models';

const Query = z.strictObject({
  /** Seconds to wait for the result before answering 202 (the page then polls the job). (Default: the query time limit + 15) */
  wait: z.coerce.number().int().min(0).max(120).optional(),
});

// The SQL is parsed, checked against the allow-list and run by the worker
// (which owns the embedded ClickHouse), never here: this route only waits for
// the job, so a refusal still answers as a 400 naming what was refused.
export const POST = apiHandler({ role: 'viewer', body: ModelsQueryPayload, query: Query, maxBodyBytes: 128 * 1024 }, async ({ deps, body, query, principal, req }) => {
  const { runId } = await enqueueJob(deps, { kind: 'models.query', params: body, createdBy: principalLabel(principal) });
  const waitMs = (query.wait ?? QUERY_LIMITS.maxExecutionTime + 15) * 1000;
  const run = waitMs > 0 ? await waitForJobRun(deps.pool, runId, { timeoutMs: waitMs, signal: req.signal }) : null;
  const head = { id: runId, kind: 'models.query' };
  if (!run || run.status === 'queued' || run.status === 'running') return json({ ...head, status: run?.status ?? 'queued' }, 202, { Location: `/api/v1/jobs/${runId}` });
  // the query's own failures (refused, empty, a ClickHouse error) are the request's fault
  if (run.status === 'failed' && run.error?.startsWith('models: ')) throw new AppError('validation', run.error, { field: 'sql' });
  return json({ ...head, status: run.status, result: run.result, error: run.error }, 200, { Location: `/api/v1/jobs/${runId}` });
});
