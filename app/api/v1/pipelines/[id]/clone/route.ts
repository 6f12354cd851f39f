// POST /api/v1/pipelines/:id/clone - copy a pipeline: { name? } (default `<name>-copy`) (operator)
import { z } from 'zod';
import { apiHandler } from '@/app/_server/deps';
import { auditActor, json, principalLabel } from '@/lib/api';
import { assertMayRunWork } from '@/lib/api/presenters/job-role';
import { AppError } from '@/lib/errors';
import { clonePipeline, getPipeline } from '@/lib/pipelines';

const Body = z.object({ name: z.string().min(1).max(100).optional() }).strict();

export const POST = apiHandler({ role: 'operator', params: z.object({ id: z.string().min(1).max(200) }), body: Body }, async ({ req, deps, params, body, principal }) => {
  const cur = await getPipeline(deps.pool, deps, params.id);
  if (!cur) throw new AppError('not_found', `pipelines: no pipeline '${params.id}'`);
  await assertMayRunWork(deps.pool, deps, { principal, req }, cur.kind, cur.params, { action: 'pipeline.clone', target: `pipeline:${cur.name}`, verb: 'cloning a pipeline of' });
  const p = await clonePipeline(deps.pool, deps, cur.id, body.name, principalLabel(principal), auditActor(principal, req));
  return json(p, 201, { Location: `/api/v1/pipelines/${p.id}` });
});
