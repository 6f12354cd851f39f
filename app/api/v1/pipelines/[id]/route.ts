// GET /api/v1/pipelines/:id - one pipeline (id or name) with its run history and command line
// PATCH /api/v1/pipelines/:id - change name, description, tags, kind or params (operator)
// DELETE /api/v1/pipelines/:id - delete; 409 naming the flows that still use it (operator)
import { z } from 'zod';
import { apiHandler } from '@/lib/api';
import { assertMayRunKind } from '@/lib/api/presenters/job-role';
import { AppError } from '@/lib/errors';
import { deletePipeline, getPipeline, pipelineHistory, updatePipeline, flowsUsingPipeline } from '@/lib/pipelines';

const Params = z.object({ id: z.string().min(1).max(200) });

export const GET = apiHandler({ params: Params }, async ({ deps, params }) => {
  const p = await getPipeline(deps.pool, params.id);
  if (!p) throw new AppError('not_found', `pipelines: no pipeline '${params.id}'`);
  return { ...p, usedBy: await flowsUsingPipeline(deps.pool, p.id), runs: await pipelineHistory(deps.pool, p.id, 50) };
});

export const PATCH = apiHandler({ role: 'operator', params: Params, body: z.record(z.string(), z.unknown()), maxBodyBytes: 256 * 1024 }, async ({ deps, params, body, principal }) => {
  if (typeof body.kind === 'string') assertMayRunKind(principal.role, body.kind);
  return updatePipeline(deps.pool, params.id, body as never);
});

export const DELETE = apiHandler({ role: 'operator', params: Params }, async ({ deps, params }) => {
  const p = await deletePipeline(deps.pool, params.id);
  return { deleted: p.id, name: p.name };
});
