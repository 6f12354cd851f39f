// POST /api/v1/assets/run - run from a node of the asset graph { node, scope: node|upstream|downstream, action: run|dq } → 202 { jobs } (operator)
import { z } from 'zod';
import { apiHandler } from '@/app/_server/deps';
import { accepted, auditActor, principalLabel } from '@/lib/api';
import { loadAssetGraph, runAssets } from '@/lib/assets';
import { queueLimits } from '@/lib/jobs';

const Body = z.strictObject({
  /** A node id of GET /api/v1/assets (`lake:etl.orders`, `model:daily_sales`, …). */
  node: z.string({ error: 'required: a node id of GET /api/v1/assets, e.g. model:daily_sales' }).min(1, 'required: a node id').max(1000),
  /** The node alone, or with everything upstream or downstream of it. (Default: node) */
  scope: z.enum(['node', 'upstream', 'downstream'], { error: 'must be node, upstream or downstream' }).default('node'),
  /** Load/build (run), or reconcile the lake tables in scope against their sources (dq). (Default: run) */
  action: z.enum(['run', 'dq'], { error: 'must be run or dq' }).default('run'),
});

// Not `enqueues`: one request queues several runs, and an Idempotency-Key names one run.
export const POST = apiHandler({ role: 'operator', body: Body }, async ({ req, deps, body, principal }) => {
  const graph = await loadAssetGraph({ pool: deps.pool, env: deps.env });
  const { jobs } = await runAssets(deps, graph, body, { createdBy: principalLabel(principal), audit: auditActor(principal, req), admission: queueLimits(deps.env) });
  return accepted({ node: body.node, scope: body.scope, action: body.action, jobs }, jobs.length ? `/api/v1/jobs/${jobs[0].id}` : '/api/v1/jobs', false);
});
