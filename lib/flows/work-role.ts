import type pg from 'pg';
import { maxRole, type Role } from '../auth/roles';
import type { JobCatalog } from '../jobs/types';
import { getPipeline } from '../pipelines';

type Db = Pick<pg.Pool, 'query'>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Wrappers can nest (a pipeline of kind `pipelines.run`, a flow node running
 * `flows.run` of another flow…); deeper than this, or a cycle, is treated as
 * needing admin rather than followed for ever.
 */
const MAX_DEPTH = 8;

/**
 * The least role that may start a job spec, following the work rather than
 * the wrapper: `pipelines.run` needs the role of the pipeline's own kind,
 * `flows.run` the highest role of the flow's nodes. A wrapper that names
 * nothing that exists needs just its own kind's role (the run then fails
 * as "not found", naming it).
 */
export async function roleOfWork(db: Db, catalog: JobCatalog, kind: string, params: unknown, depth = 0): Promise<Role> {
  if (depth > MAX_DEPTH) return 'admin';
  const p = (params && typeof params === 'object' ? params : {}) as Record<string, unknown>;
  // An inline tables.json chooses what every branch runs with its stored credentials (any table the
  // login reads, or a subquery): the power of editing tables.json itself (PUT /api/v1/tables), admin's.
  const own = p.tablesJson !== undefined ? maxRole(catalog.jobs.roleOf(kind), 'admin') : catalog.jobs.roleOf(kind);
  if (kind === 'pipelines.run' && typeof p.pipeline === 'string') {
    return maxRole(own, await roleOfPipeline(db, catalog, p.pipeline, depth + 1));
  }
  if (kind === 'flows.run' && typeof p.flow === 'string') {
    return maxRole(own, await roleOfFlow(db, catalog, p.flow, depth + 1));
  }
  return own;
}

/** A pipeline's role: its kind's (followed through wrappers). Operator when there is no such pipeline. */
export async function roleOfPipeline(db: Db, catalog: JobCatalog, ref: string, depth = 0): Promise<Role> {
  const pl = await getPipeline(db, catalog, ref);
  return pl ? roleOfWork(db, catalog, pl.kind, pl.params, depth) : 'operator';
}

/** One node of a flow (as stored or as sent): its pipeline's role or its inline kind's. */
export async function roleOfNode(db: Db, catalog: JobCatalog, n: { pipeline?: unknown; kind?: unknown; params?: unknown }, depth = 0): Promise<Role> {
  if (typeof n.pipeline === 'string') return roleOfPipeline(db, catalog, n.pipeline, depth);
  if (typeof n.kind === 'string') return roleOfWork(db, catalog, n.kind, n.params, depth);
  return 'operator';
}

/** A flow's role: the highest role of its nodes (at least operator, the role that runs flows). */
export async function roleOfNodes(db: Db, catalog: JobCatalog, nodes: unknown, depth = 0): Promise<Role> {
  let r: Role = 'operator';
  for (const n of Array.isArray(nodes) ? nodes : []) {
    if (n && typeof n === 'object') r = maxRole(r, await roleOfNode(db, catalog, n as Record<string, unknown>, depth));
  }
  return r;
}

/** A stored flow's role, by id or name. Operator when there is no such flow. */
export async function roleOfFlow(db: Db, catalog: JobCatalog, ref: string, depth = 0): Promise<Role> {
  if (depth > MAX_DEPTH) return 'admin';
  const r = UUID.test(ref)
    ? await db.query('select nodes from flows where id = $1 or name = $1::text', [ref])
    : await db.query('select nodes from flows where name = $1', [ref]);
  return r.rowCount ? roleOfNodes(db, catalog, r.rows[0].nodes, depth + 1) : 'operator';
}

/** A flow run's role: the highest role of the nodes it snapshotted (what a retry runs again). */
export async function roleOfFlowRun(db: Db, catalog: JobCatalog, runId: string): Promise<Role> {
  if (!UUID.test(runId)) return 'operator';
  const r = await db.query('select kind, params from flow_run_nodes where flow_run_id = $1', [runId]);
  return roleOfNodes(db, catalog, r.rows.map((x) => ({ kind: x.kind, params: x.params })), 1);
}
