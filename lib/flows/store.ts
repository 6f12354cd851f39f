import crypto from 'node:crypto';
import type { JobCatalog } from '../jobs/types';
import type pg from 'pg';
import { AppError } from '../errors';
import { recordAudit, type AuditActor } from '../audit';
import { parseInput, withTransaction } from '../pipelines';
import { FlowPatchSchema, type FlowDefinition, type FlowPatch } from './spec';
import { validateFlow } from './validate';
import { nextFireTimes } from './schedule';

/**
 * Flows (table `flows`), addressed by id or name. Saving validates the whole
 * definition first, so a bad flow writes nothing.
 */
export interface FlowNodeView {
  id: string; label?: string; pipeline?: string; pipelineName?: string;
  kind?: string; params?: Record<string, unknown>; position?: { x: number; y: number };
}
export interface FlowView extends Omit<FlowDefinition, 'nodes'> {
  id: string;
  nodes: FlowNodeView[];
  /** The next five fire times (ISO, UTC) when scheduled and enabled. */
  nextFires: string[];
  createdBy: string | null; createdAt: string; updatedAt: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const iso = (d: Date | null) => (d ? d.toISOString() : null);

async function pipelineNames(db: Pick<pg.Pool, 'query'>, rows: Record<string, any>[]): Promise<Map<string, string>> {
  const ids = [...new Set(rows.flatMap((r) => (r.nodes as FlowNodeView[]).map((n) => n.pipeline).filter(Boolean)))];
  if (!ids.length) return new Map();
  const r = await db.query('select id, name from pipelines where id = any($1::uuid[])', [ids]);
  return new Map(r.rows.map((x) => [x.id as string, x.name as string]));
}

function view(r: Record<string, any>, names: Map<string, string>, now = new Date()): FlowView {
  let nextFires: string[] = [];
  if (r.cron && r.enabled) {
    try { nextFires = nextFireTimes(r.cron, r.timezone ?? 'UTC', now, 5).map((d) => d.toISOString()); } catch { /* validated on save */ }
  }
  return {
    id: r.id, name: r.name, description: r.description,
    nodes: (r.nodes as FlowNodeView[]).map((n) => (n.pipeline ? { ...n, pipelineName: names.get(n.pipeline) } : n)),
    edges: r.edges, cron: r.cron, timezone: r.timezone ?? 'UTC', enabled: r.enabled,
    catchup: r.catchup, overlap: r.overlap, maxParallel: r.max_parallel,
    alerts: {
      onFailure: r.alert_on_failure, onSuccess: r.alert_on_success, longRunningMinutes: r.alert_long_running_minutes,
      recipients: r.alert_recipients, connection: r.smtp_connection, webhooks: r.alert_webhooks ?? [],
    },
    nextFires, createdBy: r.created_by, createdAt: iso(r.created_at)!, updatedAt: iso(r.updated_at)!,
  };
}

async function rowOf(db: Pick<pg.Pool, 'query'>, ref: string, lock = false): Promise<Record<string, any> | null> {
  const r = UUID.test(ref)
    ? await db.query(`select * from flows where id = $1 or name = $1::text ${lock ? 'for update' : ''}`, [ref])
    : await db.query(`select * from flows where name = $1 ${lock ? 'for update' : ''}`, [ref]);
  return r.rows[0] ?? null;
}

export async function getFlow(db: Pick<pg.Pool, 'query'>, ref: string): Promise<FlowView | null> {
  const row = await rowOf(db, ref);
  return row ? view(row, await pipelineNames(db, [row])) : null;
}

export async function mustGetFlow(db: Pick<pg.Pool, 'query'>, ref: string): Promise<FlowView> {
  const f = await getFlow(db, ref);
  if (!f) throw new AppError('not_found', `flows: no flow '${ref}'`);
  return f;
}

export async function listFlows(db: Pick<pg.Pool, 'query'>): Promise<FlowView[]> {
  const r = await db.query('select * from flows order by name');
  const names = await pipelineNames(db, r.rows);
  return r.rows.map((x) => view(x, names));
}

function columns(f: FlowDefinition): unknown[] {
  return [
    f.name, f.description, JSON.stringify(f.nodes), JSON.stringify(f.edges), f.cron, f.timezone, f.enabled,
    f.catchup, f.overlap, f.maxParallel, f.alerts.onFailure, f.alerts.onSuccess, f.alerts.longRunningMinutes,
    f.alerts.recipients, f.alerts.connection,
  ];
}

function conflictOnName(e: unknown, name: string): never {
  if ((e as { code?: string }).code === '23505') throw new AppError('conflict', `flows: a flow named '${name}' already exists`, { field: 'name', cause: e });
  throw e;
}

/** Save a new flow. Its schedule counts from now: no fire before its creation runs. */
export async function createFlow(pool: pg.Pool, catalog: JobCatalog, input: unknown, createdBy?: string | null, audit?: AuditActor): Promise<FlowView> {
  const f = await validateFlow(pool, catalog, input);
  const r = await withTransaction(pool, async (client) => {
    const ins = await client.query(
      `insert into flows (id, name, description, nodes, edges, cron, timezone, enabled, catchup, overlap, max_parallel,
          alert_on_failure, alert_on_success, alert_long_running_minutes, alert_recipients, smtp_connection, schedule_cursor, created_by, alert_webhooks)
       values ($16, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, now(), $17, $18) returning *`,
      [...columns(f), crypto.randomUUID(), createdBy ?? null, f.alerts.webhooks],
    ).catch((e) => conflictOnName(e, f.name));
    if (audit) await recordAudit(client, { ...audit, action: 'flow.create', target: `flow:${f.name}`, after: f });
    return ins;
  });
  return view(r.rows[0], await pipelineNames(pool, r.rows));
}

/** The stored flow as a definition (the input shape), for merging patches and `flows show --json`. */
export function definitionOf(v: FlowView): FlowDefinition {
  return {
    name: v.name, description: v.description,
    nodes: v.nodes.map(({ pipelineName, ...n }) => { void pipelineName; return n; }),
    edges: v.edges, cron: v.cron, timezone: v.timezone, enabled: v.enabled, catchup: v.catchup, overlap: v.overlap,
    maxParallel: v.maxParallel, alerts: v.alerts,
  };
}

/**
 * Change a flow: the patch is merged over the stored definition and the
 * result validated whole. A change of cron, zone or enabled restarts the
 * schedule from now (the scheduler re-reads flows every tick, so it applies
 * without a restart, and never catches up fires from before the change).
 */
export async function updateFlow(pool: pg.Pool, catalog: JobCatalog, ref: string, patch: FlowPatch, audit?: AuditActor, action = 'flow.update'): Promise<FlowView> {
  const p = parseInput(FlowPatchSchema, patch, 'flows');
  const row2 = await withTransaction(pool, async (client) => {
    const row = await rowOf(client, ref, true);
    if (!row) throw new AppError('not_found', `flows: no flow '${ref}'`);
    const cur = definitionOf(view(row, new Map()));
    // Only the keys the client sent: the schema's defaults must not overwrite stored values.
    const sent = <T extends object>(parsed: T, raw: unknown) => Object.fromEntries(Object.entries(parsed).filter(([k]) => raw && typeof raw === 'object' && k in raw));
    const rawAlerts = (patch as { alerts?: unknown }).alerts;
    const merged = { ...cur, ...sent(p, patch), alerts: { ...cur.alerts, ...(p.alerts ? sent(p.alerts, rawAlerts) : {}) } };
    const f = await validateFlow(client, catalog, merged);
    const scheduleChanged = f.cron !== row.cron || f.timezone !== (row.timezone ?? 'UTC') || f.enabled !== row.enabled;
    const r = await client.query(
      `update flows set name = $1, description = $2, nodes = $3, edges = $4, cron = $5, timezone = $6, enabled = $7, catchup = $8,
          overlap = $9, max_parallel = $10, alert_on_failure = $11, alert_on_success = $12, alert_long_running_minutes = $13,
          alert_recipients = $14, smtp_connection = $15, alert_webhooks = $18, updated_at = now(),
          schedule_cursor = case when $17 then now() else schedule_cursor end
        where id = $16 returning *`,
      [...columns(f), row.id, scheduleChanged, f.alerts.webhooks],
    ).catch((e) => conflictOnName(e, f.name));
    if (audit) await recordAudit(client, { ...audit, action, target: `flow:${f.name}`, before: cur, after: f });
    return r.rows[0] as Record<string, any>;
  });
  return view(row2, await pipelineNames(pool, [row2]));
}

/** Pause (false) or resume (true) a flow's schedule. */
export async function setFlowEnabled(pool: pg.Pool, catalog: JobCatalog, ref: string, enabled: boolean, audit?: AuditActor): Promise<FlowView> {
  return updateFlow(pool, catalog, ref, { enabled }, audit, enabled ? 'flow.resume' : 'flow.pause');
}

/** Delete a flow; refused while one of its runs is going. Its run history goes with it. */
export async function deleteFlow(pool: pg.Pool, ref: string, audit?: AuditActor): Promise<FlowView> {
  return withTransaction(pool, async (client) => {
    const row = await rowOf(client, ref, true);
    if (!row) throw new AppError('not_found', `flows: no flow '${ref}'`);
    const active = await client.query(`select 1 from flow_runs where flow_id = $1 and status in ('queued', 'running') limit 1`, [row.id]);
    if (active.rowCount) throw new AppError('conflict', `flows: '${row.name}' has a run going; cancel it first`);
    await client.query('delete from flow_runs where flow_id = $1', [row.id]);
    await client.query('delete from flows where id = $1', [row.id]);
    const v = view(row, new Map());
    if (audit) await recordAudit(client, { ...audit, action: 'flow.delete', target: `flow:${v.name}`, before: definitionOf(v) });
    return v;
  });
}
