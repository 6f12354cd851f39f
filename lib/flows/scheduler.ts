import pg from 'pg';
import type { JobCatalog } from '../jobs/types';
import { toError } from '../errors';
import type { Logger } from '../log';
import type { LineageEmitter } from '../lineage';
import { advanceFlowRuns } from './executor';
import { planFire, planOverlap } from './fire-plan';
import { insertFlowRun } from './runs';
import { logFlowRun } from './run-log';
import { latestFireAtOrBefore } from './schedule';

/**
 * The flow scheduler, started by every worker process. Each tick:
 * - leadership: one advisory lock, held on the scheduler's own connection
 *   (not a pool's, which would hand it to whoever borrows the connection).
 *   The leader fires schedules; when its process dies Postgres drops the
 *   connection and the lock, and another worker takes it at its next tick;
 * - the leader reads every enabled, scheduled flow afresh (so a schedule
 *   edited in the panel applies at the next tick, without a restart) and
 *   creates a run per due fire. The unique key (flow, scheduled_for) makes
 *   a double fire or a second leader harmless;
 * - every worker, leader or not, advances flow runs (executor.ts).
 */
export interface SchedulerOptions {
  pool: pg.Pool;
  /** The job kinds and settings of this process (its edge's), for the executor to enqueue nodes and alerts. */
  catalog: JobCatalog;
  /** Connection string for the leadership connection. */
  url: string;
  logger: Logger;
  /** Time between ticks. (Default: 2000 ms) */
  tickMs?: number;
  /** A fire later than this is "missed" and follows the catch-up policy. (Default: 60000 ms) */
  misfireGraceMs?: number;
  /** Base URL of the panel, for links in alert mail. (Default: http://127.0.0.1:8765) */
  publicUrl?: string;
  /**
   * The clock fire times are computed against. Tests hand in a faster one
   * so that minutes of cron time pass in seconds; cron semantics are
   * unchanged. (Default: the real clock)
   */
  now?: () => Date;
  /** Advisory lock key. (Default: 7401337012) */
  lockKey?: number;
  /** Fire schedules (false: only advance runs). (Default: true) */
  schedule?: boolean;
  /** OpenLineage events of flow runs (executor.ts). (Default: none) */
  lineage?: LineageEmitter | null;
  /**
   * Periodic work that must run on one worker only (the freshness check:
   * one alert per breach), called on each tick while this scheduler leads,
   * with the real time (not `now`: a task compares against database timestamps). A task throttles itself and logs its own errors.
   * (Default: none)
   */
  leaderTasks?: ((now: Date) => Promise<void>)[];
}

export interface SchedulerHandle {
  isLeader(): boolean;
  /** Run one tick now (tests). */
  tick(): Promise<void>;
  stop(): Promise<void>;
}

export const SCHEDULER_LOCK_KEY = 7_401_337_012;

export function startFlowScheduler(o: SchedulerOptions): SchedulerHandle {
  const tickMs = o.tickMs ?? 2000;
  const graceMs = o.misfireGraceMs ?? 60_000;
  const now = o.now ?? (() => new Date());
  const key = o.lockKey ?? SCHEDULER_LOCK_KEY;
  let leaderConn: pg.Client | null = null;
  let leader = false;
  let stopped = false;
  let running: Promise<void> | null = null;

  /** `stopping`: the worker gives the lead up (an info line); otherwise it lost it (the connection failed: a warning). */
  const dropLeaderConn = async (stopping = false) => {
    const c = leaderConn;
    leaderConn = null;
    if (leader && stopping) o.logger.info('flows: scheduler leadership released (stopping)');
    else if (leader) o.logger.warn('flows: scheduler lost leadership');
    leader = false;
    if (c) await c.end().catch(() => {}); // closing: a failing close changes nothing the caller can act on
  };

  const lead = async () => {
    try {
      if (!leaderConn) {
        const c = new pg.Client({ connectionString: o.url, application_name: 'tributary-scheduler' });
        c.on('error', () => { if (leaderConn === c) void dropLeaderConn(); });
        await c.connect();
        leaderConn = c;
      }
      if (leader) {
        await leaderConn.query('select 1'); // still holding: the lock lives as long as this connection
      } else {
        const r = await leaderConn.query('select pg_try_advisory_lock($1) as ok', [key]);
        if (r.rows[0].ok) { leader = true; o.logger.info('flows: this worker now leads the scheduler'); }
      }
    } catch (e) {
      o.logger.warn('flows: scheduler leadership connection failed', { error: toError(e).message });
      await dropLeaderConn();
    }
  };

  const tick = async () => {
    if (o.schedule !== false) await lead();
    if (leader && !stopped) {
      try { await fireDue(o.pool, o.logger, now(), graceMs); } catch (e) { o.logger.warn('flows: scheduling tick failed', { error: toError(e).message }); }
      for (const task of o.leaderTasks ?? []) {
        try { await task(new Date()); } catch (e) { o.logger.warn('flows: a leader task failed', { error: toError(e).message }); }
      }
    }
    if (!stopped) {
      try { await advanceFlowRuns({ pool: o.pool, catalog: o.catalog, logger: o.logger, publicUrl: o.publicUrl, lineage: o.lineage }); } catch (e) { o.logger.warn('flows: executor tick failed', { error: toError(e).message }); }
    }
  };
  const guarded = () => {
    if (running || stopped) return running ?? Promise.resolve();
    running = tick().finally(() => { running = null; });
    return running;
  };
  const timer = setInterval(() => void guarded(), tickMs);
  void guarded();

  return {
    isLeader: () => leader,
    tick: async () => { await running; await tick(); },
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running?.catch(() => {}); // the tick loop logs its own errors; here we only wait for it to end
      if (leaderConn && leader) await leaderConn.query('select pg_advisory_unlock($1)', [key]).catch(() => {}); // session-scoped lock: if unlocking fails the connection is gone and the lock with it
      await dropLeaderConn(true);
    },
  };
}

/**
 * Create the runs that are due at `at` for every enabled scheduled flow.
 * One transaction per flow, its row locked (SKIP LOCKED: a flow being edited
 * waits for the next tick); the cursor moves in the same transaction as the
 * run is created.
 */
export async function fireDue(pool: pg.Pool, logger: Logger, at: Date, graceMs: number): Promise<void> {
  const flows = await pool.query(`select id from flows where enabled and cron is not null`);
  for (const { id } of flows.rows) {
    const client = await pool.connect();
    try {
      await client.query('begin');
      const r = await client.query(`select * from flows where id = $1 and enabled and cron is not null for update skip locked`, [id]);
      const flow = r.rows[0];
      if (!flow) { await client.query('commit'); continue; }
      const cursor: Date = flow.schedule_cursor ?? flow.updated_at;
      const latest = latestFireAtOrBefore(flow.cron, flow.timezone ?? 'UTC', at);
      const plan = planFire({ cursor, latest, now: at, catchup: flow.catchup, graceMs });
      if (plan.action === 'none') { await client.query('commit'); continue; }
      if (plan.action === 'skip-missed') {
        logger.info('flows: skipped a missed fire (catch-up: skip)', { flow: flow.name, scheduledFor: plan.at.toISOString() });
      } else {
        const a = await client.query(
          `select count(*) filter (where status = 'running')::int as running, count(*) filter (where status = 'queued')::int as queued
             from flow_runs where flow_id = $1 and status in ('queued', 'running')`, [flow.id]);
        const o = planOverlap(flow.overlap, a.rows[0]);
        const runId = await insertFlowRun(client, flow, {
          trigger: 'schedule', scheduledFor: plan.at, createdBy: 'scheduler',
          status: o.start ? 'queued' : 'skipped', error: o.start ? null : `fire skipped: ${o.reason}`,
        });
        if (runId) {
          await logFlowRun(client, runId, o.start ? 'info' : 'warn',
            o.start ? `fired for ${plan.at.toISOString()}${plan.late ? ' (late: catch-up once)' : ''}` : `fire for ${plan.at.toISOString()} skipped: ${o.reason}`);
          logger.info(o.start ? 'flows: fired' : 'flows: fire skipped', { flow: flow.name, scheduledFor: plan.at.toISOString(), runId, reason: o.reason });
        }
      }
      await client.query('update flows set schedule_cursor = $2 where id = $1', [flow.id, plan.at]);
      await client.query('commit');
    } catch (e) {
      await client.query('rollback').catch(() => {}); // the original error is what matters; a failed ROLLBACK means the connection is already gone
      logger.warn('flows: could not fire a flow; next tick tries again', { flowId: id, error: toError(e).message });
    } finally {
      client.release();
    }
  }
}
