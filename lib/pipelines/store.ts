import crypto from 'node:crypto';
import type pg from 'pg';
import { AppError } from '../errors';
import { checkJobSpecWithConfig, parseInput } from './job-spec';
import { PipelineInputSchema, PipelinePatchSchema, type PipelineInput } from './spec';
import { enqueueJobBatch, type BatchStart } from '../jobs/enqueue-batch';
import type { EnqueueRequest } from '../jobs/enqueue';
import { pipelineCommandLine, rowsOfResult } from './command-line';
import { withTransaction } from './transaction';
import { createIdempotently, findIdempotentRun, type IdempotencyRequest } from '../jobs/idempotency';
import { assertQueueAdmits, type QueueLimits } from '../jobs/admission';
import { z } from 'zod';
import type { JobCatalog } from '../jobs/types';
import { recordAudit, type AuditActor } from '../audit';

/**
 * The pipeline library (table `pipelines`): named, saved job specs. A
 * pipeline is addressed by id or name; flows refer to it by id so a rename
 * does not break them.
 */
export interface PipelineView {
  id: string; name: string; description: string; tags: string[];
  kind: string; params: Record<string, unknown>;
  /** The equivalent `tributary …` command. */
  command: string;
  createdBy: string | null; createdAt: string; updatedAt: string;
}

export interface PipelineRunView {
  jobRunId: string; flowRunId: string | null; status: string;
  createdAt: string; startedAt: string | null; finishedAt: string | null;
  durationMs: number | null; rows: number | null; error: string | null;
}

/** What an audit event keeps of a pipeline (params hold no secrets: credentials come only from connections). */
const auditView = (p: PipelineView) => ({ name: p.name, description: p.description, tags: p.tags, kind: p.kind, params: p.params });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const iso = (d: Date | null) => (d ? d.toISOString() : null);

function view(catalog: JobCatalog, r: Record<string, any>): PipelineView {
  return {
    id: r.id, name: r.name, description: r.description, tags: r.tags, kind: r.kind, params: r.params,
    command: pipelineCommandLine({ name: r.name, kind: r.kind, params: r.params }, catalog.jobs.get(r.kind)?.payload), createdBy: r.created_by,
    createdAt: iso(r.created_at)!, updatedAt: iso(r.updated_at)!,
  };
}

function conflictOnName(e: unknown, name: string): never {
  if ((e as { code?: string }).code === '23505') throw new AppError('conflict', `pipelines: a pipeline named '${name}' already exists`, { field: 'name', cause: e });
  throw e;
}

/** One pipeline by id or name. */
export async function getPipeline(pool: Pick<pg.Pool, 'query'>, catalog: JobCatalog, ref: string): Promise<PipelineView | null> {
  const r = UUID.test(ref)
    ? await pool.query('select * from pipelines where id = $1 or name = $1::text', [ref])
    : await pool.query('select * from pipelines where name = $1', [ref]);
  return r.rows[0] ? view(catalog, r.rows[0]) : null;
}

async function mustGet(pool: Pick<pg.Pool, 'query'>, catalog: JobCatalog, ref: string): Promise<PipelineView> {
  const p = await getPipeline(pool, catalog, ref);
  if (!p) throw new AppError('not_found', `pipelines: no pipeline '${ref}'`);
  return p;
}

export async function listPipelines(pool: pg.Pool, catalog: JobCatalog, f: { tag?: string; kind?: string } = {}): Promise<PipelineView[]> {
  const r = await pool.query(
    `select * from pipelines where ($1::text is null or $1 = any(tags)) and ($2::text is null or kind = $2) order by name`,
    [f.tag ?? null, f.kind ?? null]);
  return r.rows.map((x) => view(catalog, x));
}

/** Save a new pipeline; its params are checked by the kind's own schema first. */
export async function createPipeline(pool: pg.Pool, catalog: JobCatalog, input: PipelineInput, createdBy?: string | null, audit?: AuditActor, action = 'pipeline.create'): Promise<PipelineView> {
  const p = parseInput(PipelineInputSchema, input, 'pipelines');
  await checkJobSpecWithConfig(pool, catalog, p.kind, p.params);
  return withTransaction(pool, async (client) => {
    const r = await client.query(
      `insert into pipelines (id, name, description, tags, kind, params, created_by) values ($1, $2, $3, $4, $5, $6, $7) returning *`,
      [crypto.randomUUID(), p.name, p.description, p.tags, p.kind, JSON.stringify(p.params), createdBy ?? null],
    ).catch((e) => conflictOnName(e, p.name));
    const v = view(catalog, r.rows[0]);
    if (audit) await recordAudit(client, { ...audit, action, target: `pipeline:${v.name}`, after: auditView(v) });
    return v;
  });
}

/** Change a pipeline; the merged result is validated as a whole. */
export async function updatePipeline(pool: pg.Pool, catalog: JobCatalog, ref: string, patch: z.input<typeof PipelinePatchSchema>, audit?: AuditActor): Promise<PipelineView> {
  const cur = await mustGet(pool, catalog, ref);
  const parsed = parseInput(PipelinePatchSchema, patch, 'pipelines');
  // Only the keys the client sent: the schema's defaults must not overwrite stored values.
  const p = Object.fromEntries(Object.entries(parsed).filter(([k]) => k in (patch ?? {}))) as typeof parsed;
  const merged = parseInput(PipelineInputSchema, {
    name: p.name ?? cur.name, description: p.description ?? cur.description, tags: p.tags ?? cur.tags,
    kind: p.kind ?? cur.kind, params: p.params ?? cur.params,
  }, 'pipelines');
  await checkJobSpecWithConfig(pool, catalog, merged.kind, merged.params);
  return withTransaction(pool, async (client) => {
    const r = await client.query(
      `update pipelines set name = $2, description = $3, tags = $4, kind = $5, params = $6, updated_at = now() where id = $1 returning *`,
      [cur.id, merged.name, merged.description, merged.tags, merged.kind, JSON.stringify(merged.params)],
    ).catch((e) => conflictOnName(e, merged.name));
    const v = view(catalog, r.rows[0]);
    if (audit) await recordAudit(client, { ...audit, action: 'pipeline.update', target: `pipeline:${v.name}`, before: auditView(cur), after: auditView(v) });
    return v;
  });
}

/** A copy under a new name (default `<name>-copy`, `<name>-copy-2`, …). */
export async function clonePipeline(pool: pg.Pool, catalog: JobCatalog, ref: string, name?: string, createdBy?: string | null, audit?: AuditActor): Promise<PipelineView> {
  const cur = await mustGet(pool, catalog, ref);
  let target = name;
  if (!target) {
    for (let i = 1; ; i++) {
      target = i === 1 ? `${cur.name}-copy` : `${cur.name}-copy-${i}`;
      if (!(await getPipeline(pool, catalog, target))) break;
    }
  }
  return createPipeline(pool, catalog, { name: target, description: cur.description, tags: cur.tags, kind: cur.kind, params: cur.params }, createdBy, audit, 'pipeline.clone');
}

/** Names of the flows whose nodes use a pipeline. */
export async function flowsUsingPipeline(pool: Pick<pg.Pool, 'query'>, id: string): Promise<string[]> {
  const r = await pool.query(
    `select name from flows where exists (select 1 from jsonb_array_elements(nodes) n where n->>'pipeline' = $1) order by name`, [id]);
  return r.rows.map((x) => x.name as string);
}

/** Delete a pipeline; refused (conflict) while a flow uses it, naming the flows. */
export async function deletePipeline(pool: pg.Pool, catalog: JobCatalog, ref: string, audit?: AuditActor): Promise<PipelineView> {
  return withTransaction(pool, async (client) => {
    const cur = await mustGet(client, catalog, ref);
    // Lock out a concurrent flow save adding a use between the check and the delete.
    await client.query('lock table flows in share row exclusive mode');
    const users = await flowsUsingPipeline(client, cur.id);
    if (users.length) {
      throw new AppError('conflict', `pipelines: '${cur.name}' is used by flow${users.length > 1 ? 's' : ''} ${users.map((u) => `'${u}'`).join(', ')}; remove it from them first`);
    }
    await client.query('delete from pipelines where id = $1', [cur.id]);
    if (audit) await recordAudit(client, { ...audit, action: 'pipeline.delete', target: `pipeline:${cur.name}`, before: auditView(cur) });
    return cur;
  });
}

/** A job to start for a flow node or a "run now": a saved pipeline's (recorded in its history) or a spec of its own. */
export interface PipelineStart extends EnqueueRequest {
  /** The saved pipeline it runs, or null for a node's own job spec. */
  pipelineId: string | null;
  /** The flow run it belongs to, recorded in the pipeline's history. (Default: none) */
  flowRunId?: string;
}

/**
 * Start jobs in the caller's transaction, recording those of saved pipelines
 * in their history: one batch of job writes (lib/jobs/enqueue-batch.ts) and
 * one INSERT of history rows. Used by flow steps and "run now".
 * @returns one outcome per start, in order (a refused one carries its error)
 */
export async function enqueuePipelineJobs(client: pg.PoolClient, catalog: JobCatalog, starts: PipelineStart[]): Promise<BatchStart[]> {
  const out = await enqueueJobBatch(client, catalog, starts.map(({ pipelineId: _p, flowRunId: _f, ...req }) => req));
  const history = starts.map((s, i) => ({ s, runId: out[i].runId })).filter((h) => h.s.pipelineId && h.runId);
  if (history.length) {
    await client.query(
      `insert into pipeline_runs (pipeline_id, job_run_id, flow_run_id)
       select h.pipeline_id, h.job_run_id, h.flow_run_id from unnest($1::uuid[], $2::uuid[], $3::uuid[]) with ordinality as h(pipeline_id, job_run_id, flow_run_id, i) order by h.i`,
      [history.map((h) => h.s.pipelineId), history.map((h) => h.runId), history.map((h) => h.s.flowRunId ?? null)]);
  }
  return out;
}

/**
 * Run a pipeline now: one job run, recorded in its history.
 * @param opts.idempotency a repeat of this key within 24 hours returns the first run (`replayed`) and creates nothing (Default: none)
 * @param opts.admission refuse (429) when the queue is past these limits; a replay is never refused (Default: no limits)
 */
export async function runPipeline(pool: pg.Pool, catalog: JobCatalog, ref: string, createdBy?: string, opts: { idempotency?: IdempotencyRequest; admission?: QueueLimits } = {}): Promise<{ runId: string; pipeline: PipelineView; replayed: boolean }> {
  const p = await mustGet(pool, catalog, ref);
  if (opts.idempotency) {
    const prior = await findIdempotentRun(pool, opts.idempotency, 'job_run');
    if (prior) return { runId: prior, pipeline: p, replayed: true };
  }
  if (opts.admission) await assertQueueAdmits(pool, opts.admission);
  const job = await createIdempotently(pool, opts.idempotency, 'job_run', async (client) => mustStart((await enqueuePipelineJobs(client, catalog, [{ pipelineId: p.id, kind: p.kind, params: p.params, createdBy }]))[0]));
  return { runId: job.id, pipeline: p, replayed: job.replayed };
}

/** The jobs a pipeline started, newest first: status, duration and rows. */
export async function pipelineHistory(pool: pg.Pool, catalog: JobCatalog, ref: string, limit = 50): Promise<PipelineRunView[]> {
  const p = await mustGet(pool, catalog, ref);
  const r = await pool.query(
    `select pr.job_run_id, pr.flow_run_id, j.status, j.created_at, j.started_at, j.finished_at, j.error, j.result
       from pipeline_runs pr join job_runs j on j.id = pr.job_run_id
      where pr.pipeline_id = $1 order by pr.created_at desc, pr.id desc limit $2`, [p.id, Math.min(Math.max(limit, 1), 500)]);
  return r.rows.map((x) => ({
    jobRunId: x.job_run_id, flowRunId: x.flow_run_id, status: x.status,
    createdAt: iso(x.created_at)!, startedAt: iso(x.started_at), finishedAt: iso(x.finished_at),
    durationMs: x.started_at && x.finished_at ? x.finished_at.getTime() - x.started_at.getTime() : null,
    rows: rowsOfResult(x.result), error: x.error,
  }));
}

/** A start's run id, or its refusal thrown. */
function mustStart(r: BatchStart): string {
  if (r.error) throw r.error;
  return r.runId;
}
