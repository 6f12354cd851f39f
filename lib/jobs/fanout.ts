import type pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Env } from '../config/env';
import type { Logger } from '../log';
import { AppError } from '../errors';
import { enqueueJob } from './enqueue';
import type { JobRegistry } from './registry';

/**
 * A coordinator job's side of a fan-out: each unit becomes an internal job
 * run (one per attempt, tied to the coordinator in `job_units`) that any
 * worker may claim. The coordinator polls the attempts, hands each unit's one
 * successful result to `onDone`, queues a new attempt when one failed without
 * an outcome (its worker died and was reaped, or it threw), and runs queued
 * units itself (`runInline`): at once those the other live workers have no
 * free slot for, the rest when no other worker has taken them for
 * `helpAfterMs` — so one worker alone still finishes the run, without needing
 * a second queue slot, and other workers only ever add capacity. A unit that fails with an outcome of its own throws an
 * error carrying `result: { final: true, … }`: that is its outcome, not retried here.
 */
export interface FanoutDeps {
  pool: pg.Pool;
  jobs: JobRegistry;
  env: Env;
  /** The coordinator's own job run (job_runs.id). */
  parentRunId: string;
  logger: Logger;
  signal?: AbortSignal;
  /** The coordinator's worker's inline runner (JobContext.runInline). (Default: never run units here) */
  runInline?: (runId: string) => Promise<boolean>;
  /** A unit queued this long without a taker is run by the coordinator (idle workers poll every 500 ms). (Default: 600 ms) */
  helpAfterMs?: number;
  /**
   * Units the coordinator runs inline at once while other workers had room as
   * the units were queued: a small share keeps the rest in the queue for
   * whichever worker frees a slot first, which balances the run. (Default: 4)
   */
  inlineMax?: number;
  /** The same when no other worker had a free slot: the run's own parallelism, as in one process. (Default: inlineMax) */
  inlineMaxAlone?: number;
  /** How often the attempts are read. (Default: 250 ms) */
  pollMs?: number;
  /** Attempts of a unit whose worker died or which threw, before it is given up. (Default: 3) */
  maxAttempts?: number;
}

export interface FanoutUnit {
  /** Unique within the coordinator run, e.g. `orders@branch_a`. */
  key: string;
  kind: string;
  /** The attempt's payload (the attempt number is part of it: staged output is keyed by it). */
  params(attempt: number): unknown;
}

export type FanoutOutcome =
  | { ok: true; key: string; attempt: number; workerId: string | null; result: unknown }
  | { ok: false; key: string; attempt: number; workerId: string | null; error: string };

interface Pending { unit: FanoutUnit; attempt: number; tries: number; childRunId: string; inline: boolean; now?: boolean }

/**
 * The attempts a previous execution of this coordinator run left (a run handed
 * back to the queue after an outage runs again from the start): each unit's
 * last attempt number, after stopping its children still queued or running —
 * the new execution queues fresh attempts, numbered after them, and takes no
 * output from the old ones.
 */
async function priorAttempts(d: FanoutDeps, keys: string[]): Promise<Map<string, number>> {
  const r = await d.pool.query(
    `select unit_key, max(attempt)::int as attempt, array_agg(child_run_id) as children
       from job_units where parent_run_id = $1 and unit_key = any($2::text[]) group by unit_key`, [d.parentRunId, keys]);
  if (!r.rowCount) return new Map();
  const children = r.rows.flatMap((x) => x.children as string[]);
  await d.pool.query(`update job_runs set status = 'cancelled', finished_at = now(), error = 'its coordinator started again' where id = any($1::uuid[]) and status = 'queued'`, [children]);
  await d.pool.query(`update job_runs set cancel_requested = true where id = any($1::uuid[]) and status = 'running'`, [children]);
  d.logger.warn('the coordinator runs again: its earlier units are stopped and queued afresh', { units: r.rowCount });
  return new Map(r.rows.map((x) => [x.unit_key as string, x.attempt as number]));
}

/**
 * Job slots free right now on the other live workers (their concurrency less
 * what they run): the units they can take at their next poll. The coordinator
 * starts the rest at once instead of waiting `helpAfterMs` for takers that
 * have no room.
 */
async function othersFree(d: FanoutDeps): Promise<number> {
  const r = await d.pool.query(
    `select coalesce(sum(greatest(w.concurrency - coalesce(j.n, 0), 0)), 0)::int as free
       from workers w
       left join (select worker_id, count(*) n from job_runs where status = 'running' group by worker_id) j on j.worker_id = w.id
      where w.heartbeat_at > now() - make_interval(secs => $1)
        and w.id <> coalesce((select worker_id from job_runs where id = $2), '')`,
    [d.env.TRIBUTARY_JOB_STALE_SECONDS, d.parentRunId]);
  return Number(r.rows[0]?.free ?? 0);
}

/** Run `units` over the queue; `onDone` sees each unit's outcome once, in completion order. */
export async function fanOut(d: FanoutDeps, units: FanoutUnit[], onDone: (o: FanoutOutcome) => void | Promise<void>): Promise<void> {
  const helpAfterMs = d.helpAfterMs ?? 600;
  let inlineMax = d.inlineMax ?? 4;
  const maxAttempts = d.maxAttempts ?? 3;
  const pending = new Map<string, Pending>();
  const inline = new Set<Promise<unknown>>();

  const queue = async (unit: FanoutUnit, attempt: number, tries: number) => {
    const { runId } = await enqueueJob({ pool: d.pool, jobs: d.jobs, env: d.env }, {
      kind: unit.kind, params: unit.params(attempt), createdBy: `job:${d.parentRunId}`, internal: true,
    });
    await d.pool.query('insert into job_units (parent_run_id, unit_key, attempt, child_run_id) values ($1, $2, $3, $4)', [d.parentRunId, unit.key, attempt, runId]);
    pending.set(unit.key, { unit, attempt, tries, childRunId: runId, inline: false });
  };

  try {
    // queued a few at a time: one by one, the last of a large run waited for every enqueue
    // transaction before it (each is an insert, a queue send and an audit row)
    const prior = await priorAttempts(d, units.map((u) => u.key));
    for (let i = 0; i < units.length; i += 8) await Promise.all(units.slice(i, i + 8).map((u) => queue(u, (prior.get(u.key) ?? 0) + 1, 1)));
    if (d.runInline) {
      // the other workers take the first units queued; what they have no room for starts here now
      const free = await othersFree(d);
      if (free === 0) inlineMax = Math.max(inlineMax, d.inlineMaxAlone ?? inlineMax);
      [...pending.values()].slice(free).forEach((p) => { p.now = true; });
    }
    while (pending.size) {
      d.signal?.throwIfAborted();
      const r = await d.pool.query(
        `select id, status, result, error, worker_id, extract(epoch from (now() - created_at)) * 1000 as age_ms
           from job_runs where id = any($1::uuid[])`, [[...pending.values()].map((p) => p.childRunId)]);
      const byId = new Map(r.rows.map((x) => [x.id as string, x]));
      for (const p of [...pending.values()]) {
        const row = byId.get(p.childRunId);
        if (!row) continue;
        if (row.status === 'succeeded') {
          pending.delete(p.unit.key);
          await onDone({ ok: true, key: p.unit.key, attempt: p.attempt, workerId: row.worker_id, result: row.result });
        } else if ((row.status === 'failed' || row.status === 'cancelled') && row.result?.final === true) {
          // The unit ran to an outcome of its own (a source error after its retries): no new attempt.
          pending.delete(p.unit.key);
          await onDone({ ok: true, key: p.unit.key, attempt: p.attempt, workerId: row.worker_id, result: row.result });
        } else if (row.status === 'failed' || row.status === 'cancelled') {
          const error = String(row.error ?? row.status);
          if (p.tries < maxAttempts && row.status === 'failed') {
            d.logger.warn('unit attempt failed; queueing it again', { unit: p.unit.key, attempt: p.attempt, worker: row.worker_id, error });
            await queue(p.unit, p.attempt + 1, p.tries + 1);
          } else {
            pending.delete(p.unit.key);
            await onDone({ ok: false, key: p.unit.key, attempt: p.attempt, workerId: row.worker_id, error });
          }
        } else if (row.status === 'queued' && !p.inline && d.runInline && inline.size < inlineMax && (p.now || Number(row.age_ms) >= helpAfterMs)) {
          p.inline = true;
          const run = d.runInline(p.childRunId)
            .catch((e) => d.logger.warn('running a unit here failed', { unit: p.unit.key, error: (e as Error).message }))
            .finally(() => { inline.delete(run); });
          inline.add(run);
        }
      }
      if (pending.size) await sleep(d.pollMs ?? 250, undefined, { signal: d.signal }).catch(() => {});
    }
  } finally {
    if (pending.size) {
      // Stopping early (cancelled, or the coordinator failed): its units must not run on without it.
      const ids = [...pending.values()].map((p) => p.childRunId);
      await d.pool.query(`update job_runs set status = 'cancelled', finished_at = now(), error = 'its coordinator stopped' where id = any($1::uuid[]) and status = 'queued'`, [ids])
        .catch((e) => d.logger.warn('could not cancel queued units', { error: (e as Error).message }));
      await d.pool.query(`update job_runs set cancel_requested = true where id = any($1::uuid[]) and status = 'running'`, [ids])
        .catch((e) => d.logger.warn('could not cancel running units', { error: (e as Error).message }));
    }
    await Promise.allSettled([...inline]);
  }
}

/** Which worker ran each unit of a fanned-out run (every attempt, oldest first). */
export interface UnitAttemptView { unit: string; attempt: number; runId: string; status: string; workerId: string | null; startedAt: string | null; finishedAt: string | null; error: string | null }

export async function listRunUnits(pool: pg.Pool, parentRunId: string): Promise<UnitAttemptView[]> {
  if (!/^[0-9a-f-]{36}$/i.test(parentRunId)) return [];
  const r = await pool.query(
    `select u.unit_key, u.attempt, r.id, r.status, r.worker_id, r.started_at, r.finished_at, r.error
       from job_units u join job_runs r on r.id = u.child_run_id
      where u.parent_run_id = $1 order by u.unit_key, u.attempt`, [parentRunId]);
  return r.rows.map((x) => ({
    unit: x.unit_key, attempt: x.attempt, runId: x.id, status: x.status, workerId: x.worker_id,
    startedAt: x.started_at?.toISOString() ?? null, finishedAt: x.finished_at?.toISOString() ?? null, error: x.error,
  }));
}

/**
 * One unit over the queue, started when its caller decides (a slice run's
 * orchestrator keeps `concurrency` in flight): `done` settles with its one
 * outcome; `cancel` stops it (a queued attempt is cancelled, a running one asked to stop).
 */
export function runUnit(d: FanoutDeps, unit: FanoutUnit): { done: Promise<FanoutOutcome>; cancel(): void } {
  const ac = new AbortController();
  const signal = d.signal ? AbortSignal.any([d.signal, ac.signal]) : ac.signal;
  let outcome: FanoutOutcome | null = null;
  const done = fanOut({ ...d, signal }, [unit], (o) => { outcome = o; })
    .then(() => outcome!, (e) => ({ ok: false as const, key: unit.key, attempt: 0, workerId: null, error: (e as Error).message }));
  return { done, cancel: () => ac.abort(new Error('unit cancelled')) };
}

/**
 * Whether a coordinator job fans its units out (TRIBUTARY_FANOUT): `on` and
 * `off` as set; `auto` when another worker has beaten within the stale window
 * as the run starts — alone, a worker runs the run in process, which costs no
 * queue round trips. Never outside a worker (the CLI runs in process).
 */
export async function fanoutWanted(ctx: { pool: pg.Pool; env: Env; workerId?: string; runInline?: unknown }): Promise<boolean> {
  if (!ctx.runInline || ctx.env.TRIBUTARY_FANOUT === 'off') return false;
  if (ctx.env.TRIBUTARY_FANOUT === 'on') return true;
  const r = await ctx.pool.query(
    `select 1 from workers where id <> $1 and heartbeat_at > now() - make_interval(secs => $2) limit 1`,
    [ctx.workerId ?? '', ctx.env.TRIBUTARY_JOB_STALE_SECONDS]);
  return r.rowCount! > 0;
}

/**
 * A unit refuses to start once its coordinator is no longer running (it was
 * cancelled, or its worker died and was reaped): nobody would take its output.
 */
export async function assertCoordinatorRunning(pool: pg.Pool, parentRunId: string): Promise<void> {
  const r = await pool.query('select status from job_runs where id = $1', [parentRunId]);
  const status = r.rows[0]?.status as string | undefined;
  if (status !== 'running') {
    throw new AppError('conflict', `jobs: the coordinator run ${parentRunId} is ${status ?? 'gone'}; this unit is not needed any more`);
  }
}
