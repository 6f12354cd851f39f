// GET /api/v1/pipelines/:id - one pipeline (id or name) with its run history and command line
// PATCH /api/v1/pipelines/:id - change name, description, tags, kind or params (operator)
// DELETE /api/v1/pipelines/:id - delete; 409 naming the flows that still use it (operator)
import { z } from 'zod';
import { apiHandler } from '@/app/_server/deps';
import { auditActor } from '@/lib/api';
import { assertMayRunWork } from '@/lib/api/presenters/job-role';
import { AppError } from '@/lib/errors';
import { deletePipeline, getPipeline, pipelineHistory, updatePipeline, flowsUsingPipeline } from '@/lib/pipelines';

const Params = z.object({ id: z.string().min(1).max(200) });

async function mustGet(pool: Parameters<typeof getPipeline>[0], catalog: Parameters<typeof getPipeline>[1], id: string) {
  const p = await getPipeline(pool, catalog, id);
  if (!p) throw new AppError('not_found', `pipelines: no pipeline '${id}'`);
  return p;
}

export const GET = apiHandler({ params: Params }, async ({ deps, params }) => {
  const p = await mustGet(deps.pool, deps, params.id);
  return { ...p, usedBy: await flowsUsingPipeline(deps.pool, p.id), runs: await pipelineHistory(deps.pool, deps, p.id, 50) };
});

export const PATCH = apiHandler({ role: 'operator', params: Params, body: z.record(z.string(), z.unknown()), maxBodyBytes: 256 * 1024 }, async ({ req, deps, params, body, principal }) => {
  const cur = await mustGet(deps.pool, deps, params.id);
  const what = { action: 'pipeline.update', target: `pipeline:${cur.name}`, verb: 'changing a pipeline of' };
  // The role of what it runs now and of what it would run after the change: an
  // operator may neither edit an admin's pipeline nor turn one into admin work.
  await assertMayRunWork(deps.pool, deps, { principal, req }, cur.kind, cur.params, what);
  if (typeof body.kind === 'string' || body.params !== undefined) {
    const kind = typeof body.kind === 'string' ? body.kind : cur.kind;
    await assertMayRunWork(deps.pool, deps, { principal, req }, kind, body.params ?? cur.params, what);
  }
  return updatePipeline(deps.pool, deps, cur.id, body as never, auditActor(principal, req));
});

export const DELETE = apiHandler({ role: 'operator', params: Params }, async ({ req, deps, params, principal }) => {
  const cur = await mustGet(deps.pool, deps, params.id);
  await assertMayRunWork(deps.pool, deps, { principal, req }, cur.kind, cur.params, { action: 'pipeline.delete', target: `pipeline:${cur.name}`, verb: 'deleting a pipeline of' });
  const p = await deletePipeline(deps.pool, deps, cur.id, auditActor(principal, req));
  return { deleted: p.id, name: p.name };
});
