import type pg from 'pg';
import type { JobCatalog } from '../../jobs';
import { maxRole, roleAtLeast, type Role } from '../../auth/roles';
import { recordAudit } from '../../audit';
import { AppError } from '../../errors';
import { roleOfFlow, roleOfFlowRun, roleOfNodes, roleOfWork } from '../../flows';
import { auditActor, type Principal } from '../authenticate';

/**
 * Refuse an action on work that needs a higher role than the caller's, and
 * record the refusal (`<action>.denied`): a wrapper (pipeline, flow,
 * `pipelines.run`, clone, retry) never lends an operator the powers of the
 * admin-only kind it runs. The refusal is audited outside any transaction,
 * since the change it guards never happens.
 */
export async function assertRole(
  pool: Pick<pg.Pool, 'query'>, who: { principal: Principal; req: Request }, least: Role,
  what: { action: string; target: string; message: string },
): Promise<void> {
  if (roleAtLeast(who.principal.role, least)) return;
  await recordAudit(pool, {
    ...auditActor(who.principal, who.req), action: `${what.action}.denied`, target: what.target,
    after: { needs: least, role: who.principal.role },
  });
  throw new AppError('forbidden', `${what.message} needs the ${least} role; you are ${who.principal.role}`);
}

/** The same for a job spec {kind, params}, with its role followed through wrappers (`pipelines.run`, `flows.run`). */
export async function assertMayRunWork(
  pool: Pick<pg.Pool, 'query'>, catalog: JobCatalog, who: { principal: Principal; req: Request }, kind: string, params: unknown,
  what: { action: string; target: string; verb?: string },
): Promise<void> {
  const least = await roleOfWork(pool, catalog, kind, params);
  const p = params && typeof params === 'object' ? (params as Record<string, unknown>) : {};
  const via = kind === 'pipelines.run' && typeof p.pipeline === 'string' ? ` (pipeline '${p.pipeline}')`
    : kind === 'flows.run' && typeof p.flow === 'string' ? ` (flow '${p.flow}')` : '';
  await assertRole(pool, who, least, { ...what, message: `${what.verb ?? 'starting'} ${kind}${via}` });
}

/**
 * A flow's role is the highest role of its nodes: saving, changing, pausing,
 * deleting or running one needs it, for the stored flow (`ref`) and for the
 * nodes a change would give it (`nodes`, when the body carries them).
 */
export async function assertMayUseFlow(
  pool: Pick<pg.Pool, 'query'>, catalog: JobCatalog, who: { principal: Principal; req: Request },
  what: { action: string; target: string; verb: string }, opts: { ref?: string; nodes?: unknown },
): Promise<void> {
  let least: Role = 'operator';
  if (opts.ref) least = maxRole(least, await roleOfFlow(pool, catalog, opts.ref));
  if (opts.nodes !== undefined) least = maxRole(least, await roleOfNodes(pool, catalog, opts.nodes));
  await assertRole(pool, who, least, { ...what, message: `${what.verb} a flow with these nodes` });
}

/** Retrying a flow run runs its snapshotted nodes again: their highest role. */
export async function assertMayRetryFlowRun(pool: Pick<pg.Pool, 'query'>, catalog: JobCatalog, who: { principal: Principal; req: Request }, runId: string): Promise<void> {
  await assertRole(pool, who, await roleOfFlowRun(pool, catalog, runId), { action: 'flow_run.retry', target: `flow_run:${runId}`, message: 'retrying a run of a flow with these nodes' });
}
