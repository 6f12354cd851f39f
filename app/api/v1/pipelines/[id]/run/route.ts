// POST /api/v1/pipelines/:id/run - run a pipeline now → 202 { id } of the job run (operator)
import { z } from 'zod';
import { apiHandler, json, principalLabel } from '@/lib/api';
import { assertMayRunWork } from '@/lib/api/presenters/job-role';
import { AppError } from '@/lib/errors';
import { getPipeline, runPipeline } from '@/lib/pipelines';

export const POST = apiHandler({ role: 'operator', params: z.object({ id: z.string().min(1).max(200) }) }, async ({ req, deps, params, principal }) => {
  const p = await getPipeline(deps.pool, params.id);
  if (!p) throw new AppError('not_found', `pipelines: no pipeline '${params.id}'`);
  await assertMayRunWork(deps.pool, { principal, req }, p.kind, p.params, { action: 'pipeline.run', target: `pipeline:${p.name}`, verb: 'running a pipeline of' });
  const { runId } = await runPipeline(deps.pool, p.id, principalLabel(principal));
  return json({ id: runId, kind: p.kind, pipeline: p.name, status: 'queued' }, 202, { Location: `/api/v1/jobs/${runId}` });
});
