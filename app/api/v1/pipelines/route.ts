// GET /api/v1/pipelines - the pipeline library (?tag=&kind=)
// POST /api/v1/pipelines - save a pipeline: { name, description?, tags?, kind, params } (operator)
import { z } from 'zod';
import { apiHandler } from '@/app/_server/deps';
import { auditActor, json, principalLabel } from '@/lib/api';
import { assertMayRunWork } from '@/lib/api/presenters/job-role';
import { createPipeline, listPipelines } from '@/lib/pipelines';

const Query = z.object({ tag: z.string().min(1).max(50).optional(), kind: z.string().min(1).max(100).optional() });

export const GET = apiHandler({ query: Query }, async ({ deps, query }) => ({ pipelines: await listPipelines(deps.pool, deps, query) }));

export const POST = apiHandler({ role: 'operator', body: z.record(z.string(), z.unknown()), maxBodyBytes: 256 * 1024 }, async ({ req, deps, body, principal }) => {
  if (typeof body.kind === 'string') {
    await assertMayRunWork(deps.pool, deps, { principal, req }, body.kind, body.params, { action: 'pipeline.create', target: `pipeline:${String(body.name ?? '')}`, verb: 'saving a pipeline of' });
  }
  const p = await createPipeline(deps.pool, deps, body as never, principalLabel(principal), auditActor(principal, req));
  return json(p, 201, { Location: `/api/v1/pipelines/${p.id}` });
});
