// GET /api/v1/flows/:id - one flow (id or name) with its recent runs
// PUT /api/v1/flows/:id - replace the definition (validated whole) (operator)
// PATCH /api/v1/flows/:id - change some fields, e.g. { enabled: false } or { cron, timezone } (operator)
// DELETE /api/v1/flows/:id - delete a flow and its run history; 409 while a run is going (operator)
import { z } from 'zod';
import { apiHandler } from '@/app/_server/deps';
import { auditActor } from '@/lib/api';
import { assertMayUseFlow } from '@/lib/api/presenters/job-role';
import { AppError } from '@/lib/errors';
import { deleteFlow, getFlow, listFlowRuns, mustGetFlow, updateFlow, validateFlow } from '@/lib/flows';

const Params = z.object({ id: z.string().min(1).max(200) });
const Body = z.record(z.string(), z.unknown());

export const GET = apiHandler({ params: Params }, async ({ deps, params }) => {
  const f = await getFlow(deps.pool, params.id);
  if (!f) throw new AppError('not_found', `flows: no flow '${params.id}'`);
  return { ...f, runs: await listFlowRuns(deps.pool, { flowId: f.id, limit: 20 }) };
});

export const PUT = apiHandler({ role: 'operator', params: Params, body: Body, maxBodyBytes: 512 * 1024 }, async ({ req, deps, params, body, principal }) => {
  const cur = await mustGetFlow(deps.pool, params.id);
  await assertMayUseFlow(deps.pool, deps, { principal, req }, { action: 'flow.update', target: `flow:${cur.name}`, verb: 'changing' }, { ref: cur.id, nodes: body.nodes ?? [] });
  // A replacement: validated as a whole new definition (fields not sent take their defaults, as on create).
  const full = await validateFlow(deps.pool, deps, body);
  return updateFlow(deps.pool, deps, cur.id, full as never, auditActor(principal, req));
});

export const PATCH = apiHandler({ role: 'operator', params: Params, body: Body, maxBodyBytes: 512 * 1024 }, async ({ req, deps, params, body, principal }) => {
  const cur = await mustGetFlow(deps.pool, params.id);
  await assertMayUseFlow(deps.pool, deps, { principal, req }, { action: 'flow.update', target: `flow:${cur.name}`, verb: 'changing' }, { ref: cur.id, nodes: body.nodes });
  return updateFlow(deps.pool, deps, cur.id, body as never, auditActor(principal, req));
});

export const DELETE = apiHandler({ role: 'operator', params: Params }, async ({ req, deps, params, principal }) => {
  const cur = await mustGetFlow(deps.pool, params.id);
  await assertMayUseFlow(deps.pool, deps, { principal, req }, { action: 'flow.delete', target: `flow:${cur.name}`, verb: 'deleting' }, { ref: cur.id });
  const f = await deleteFlow(deps.pool, cur.id, auditActor(principal, req));
  return { deleted: f.id, name: f.name };
});
