// GET /api/v1/flows - every flow with its schedule, next fires and last run
// POST /api/v1/flows - save a flow: { name, nodes, edges, cron?, timezone?, catchup?, overlap?, maxParallel?, alerts? } (operator)
import { z } from 'zod';
import { apiHandler } from '@/app/_server/deps';
import { auditActor, json, principalLabel } from '@/lib/api';
import { assertMayUseFlow } from '@/lib/api/presenters/job-role';
import { createFlow, listFlows, listFlowRuns } from '@/lib/flows';

export const GET = apiHandler({}, async ({ deps }) => {
  const flows = await listFlows(deps.pool);
  const out = [];
  for (const f of flows) out.push({ ...f, lastRun: (await listFlowRuns(deps.pool, { flowId: f.id, limit: 1 }))[0] ?? null });
  return { flows: out };
});

export const POST = apiHandler({ role: 'operator', body: z.record(z.string(), z.unknown()), maxBodyBytes: 512 * 1024 }, async ({ req, deps, body, principal }) => {
  await assertMayUseFlow(deps.pool, deps, { principal, req }, { action: 'flow.create', target: `flow:${String(body.name ?? '')}`, verb: 'saving' }, { nodes: body.nodes ?? [] });
  const f = await createFlow(deps.pool, deps, body, principalLabel(principal), auditActor(principal, req));
  return json(f, 201, { Location: `/api/v1/flows/${f.id}` });
});
