import type { AuditActor } from '../audit';
import { AppError } from '../errors';
import { enqueueJob, validateJob, type EnqueueDeps, type QueueLimits } from '../jobs';
import { planAssetRun } from './plan-run';
import type { AssetGraph, AssetJobSpec, AssetRunAction, AssetRunScope } from './types';

export interface AssetRunRequest {
  node: string;
  /** (Default: node) */
  scope?: AssetRunScope;
  /** (Default: run) */
  action?: AssetRunAction;
}

/**
 * Plan a run from one node and enqueue its jobs through the ordinary enqueue
 * path (one job run and one audit record each). Every job is validated and
 * checked against the configuration before the first is queued, so a refused
 * plan queues nothing.
 */
export async function runAssets(
  deps: EnqueueDeps, graph: AssetGraph, req: AssetRunRequest,
  who: { createdBy: string; audit: AuditActor; admission?: QueueLimits },
): Promise<{ jobs: (AssetJobSpec & { id: string })[] }> {
  const scope = req.scope ?? 'node'; const action = req.action ?? 'run';
  const plan = planAssetRun(graph, req.node, scope, action);
  if (!plan.length) {
    const kind = graph.nodes.find((n) => n.id === req.node)?.kind;
    throw new AppError('validation', `assets: nothing to ${action === 'dq' ? 'check' : 'run'} from ${req.node} with scope ${scope}${kind === 'lake' ? ' (no tables.json entry loads this lake table, or no branch is configured)' : ''}`, { field: action === 'dq' ? 'action' : 'scope' });
  }
  for (const j of plan) {
    const { params } = validateJob(deps.jobs, { kind: j.kind, params: j.params });
    await deps.jobs.get(j.kind)!.check?.({ pool: deps.pool, env: deps.env }, params as never);
  }
  const jobs: (AssetJobSpec & { id: string })[] = [];
  for (const j of plan) {
    const { runId } = await enqueueJob(deps, { kind: j.kind, params: j.params, createdBy: who.createdBy, audit: who.audit, admission: who.admission });
    jobs.push({ ...j, id: runId });
  }
  return { jobs };
}
