// POST /api/v1/pipelines/:id/clone - copy a pipeline: { name? } (default `<name>-copy`) (operator)
import { z } from 'zod';
import { apiHandler, json, principalLabel } from '@/lib/api';
import { clonePipeline } from '@/lib/pipelines';

const Body = z.object({ name: z.string().min(1).max(100).optional() }).strict();

export const POST = apiHandler({ role: 'operator', params: z.object({ id: z.string().min(1).max(200) }), body: Body }, async ({ deps, params, body, principal }) => {
  const p = await clonePipeline(deps.pool, params.id, body.name, principalLabel(principal));
  return json(p, 201, { Location: `/api/v1/pipelines/${p.id}` });
});
