import type pg from 'pg';

/** A worker seen alive: its own heartbeat row, or the heartbeat of a job it runs. */
export interface WorkerHealth { id: string; hostname: string | null; heartbeatAt: string; ageSeconds: number; running: number; concurrency: number | null; startedAt: string | null }

/** One hour of the last 24 by run status. */
export interface HourBucket { hour: string; queued: number; running: number; succeeded: number; failed: number; cancelled: number }

const STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;
const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : v === null || v === undefined ? null : String(v));
const exists = async (pool: pg.Pool, rel: string) => (await pool.query('SELECT to_regclass($1) IS NOT NULL AS ok', [rel])).rows[0].ok as boolean;

/** Workers alive: rows of `workers` (0012) merged with the workers of running jobs, freshest heartbeat first. */
async function workers(pool: pg.Pool): Promise<WorkerHealth[]> {
  const byId = new Map<string, WorkerHealth>();
  const running = await pool.query(`SELECT worker_id, max(heartbeat_at) AS hb, count(*)::int AS n,
      extract(epoch FROM now() - max(heartbeat_at))::float8 AS age FROM job_runs
     WHERE status = 'running' AND worker_id IS NOT NULL AND heartbeat_at IS NOT NULL GROUP BY worker_id`);
  for (const r of running.rows) {
    byId.set(r.worker_id, { id: r.worker_id, hostname: String(r.worker_id).split(':')[0] || null, heartbeatAt: iso(r.hb)!, ageSeconds: Math.max(0, Number(r.age)), running: r.n, concurrency: null, startedAt: null });
  }
  if (await exists(pool, 'public.workers')) {
    const w = await pool.query(`SELECT id, hostname, concurrency, started_at, heartbeat_at, extract(epoch FROM now() - heartbeat_at)::float8 AS age FROM workers`);
    for (const r of w.rows) {
      const prev = byId.get(r.id);
      const age = Math.max(0, Number(r.age));
      byId.set(r.id, {
        id: r.id, hostname: r.hostname, concurrency: r.concurrency, startedAt: iso(r.started_at), running: prev?.running ?? 0,
        ...(prev && prev.ageSeconds < age ? { heartbeatAt: prev.heartbeatAt, ageSeconds: prev.ageSeconds } : { heartbeatAt: iso(r.heartbeat_at)!, ageSeconds: age }),
      });
    }
  }
  return [...byId.values()].map((w) => ({ ...w, ageSeconds: Math.round(w.ageSeconds * 10) / 10 })).sort((a, b) => a.ageSeconds - b.ageSeconds);
}

/** The 24 hours up to now, oldest first, every status counted by when the run was created. */
async function runsPerHour(pool: pg.Pool): Promise<HourBucket[]> {
  const r = await pool.query(`
    SELECT h.hour, j.status, count(j.id)::int AS n
      FROM generate_series(date_trunc('hour', now()) - interval '23 hours', date_trunc('hour', now()), interval '1 hour') AS h(hour)
      LEFT JOIN job_runs j ON j.created_at >= h.hour AND j.created_at < h.hour + interval '1 hour'
     GROUP BY h.hour, j.status ORDER BY h.hour`);
  const buckets = new Map<string, HourBucket>();
  for (const x of r.rows) {
    const hour = iso(x.hour)!;
    const b = buckets.get(hour) ?? { hour, queued: 0, running: 0, succeeded: 0, failed: 0, cancelled: 0 };
    if (x.status && (STATUSES as readonly string[]).includes(x.status)) b[x.status as (typeof STATUSES)[number]] += x.n;
    buckets.set(hour, b);
  }
  return [...buckets.values()];
}

/**
 * What the Overview shows: workers alive with their heartbeat age, queue
 * depth, runs per hour over 24 h by status, failing ETL units, lake freshness
 * and a DQ summary — each from the tables that record it, in one answer.
 */
export async function overview(pool: pg.Pool, o: { staleAfterSeconds?: number; freshWithinSeconds?: number } = {}) {
  const staleAfter = o.staleAfterSeconds ?? 30;
  const freshWithin = o.freshWithinSeconds ?? 24 * 3600;
  const [ws, hours, queue, failing, fresh, dq, totals] = await Promise.all([
    workers(pool),
    runsPerHour(pool),
    (async () => {
      const q = await pool.query(`SELECT count(*) FILTER (WHERE status = 'queued')::int AS queued, count(*) FILTER (WHERE status = 'running')::int AS running,
          extract(epoch FROM now() - min(created_at) FILTER (WHERE status = 'queued'))::float8 AS oldest FROM job_runs`);
      // pg-boss's own count of jobs not yet handed to a worker (created or waiting to retry).
      const boss = (await exists(pool, 'pgboss.job'))
        ? Number((await pool.query(`SELECT count(*)::int AS n FROM pgboss.job WHERE state IN ('created', 'retry')`)).rows[0].n) : null;
      return { queued: q.rows[0].queued as number, running: q.rows[0].running as number, oldestQueuedSeconds: q.rows[0].oldest === null ? null : Math.round(Number(q.rows[0].oldest)), bossPending: boss };
    })(),
    pool.query(`SELECT table_name, branch_id, status, pipeline_run_id, last_run_finished_at, error_details FROM etl_meta.etl_control
                 WHERE status <> 'SUCCESS' ORDER BY last_run_finished_at DESC NULLS LAST LIMIT 50`),
    pool.query(`SELECT count(*)::int AS units,
          count(*) FILTER (WHERE last_success_at IS NULL)::int AS never,
          count(*) FILTER (WHERE last_success_at < now() - make_interval(secs => $1))::int AS stale,
          extract(epoch FROM now() - min(last_success_at))::float8 AS oldest,
          max(last_success_at) AS newest FROM etl_meta.etl_control`, [freshWithin]),
    pool.query(`SELECT status, count(*)::int AS n, max(checked_at) AS last FROM (
          SELECT DISTINCT ON (table_name, branch_id) status, checked_at FROM etl_meta.etl_dq_results ORDER BY table_name, branch_id, id DESC) x GROUP BY status`),
    pool.query(`SELECT status, count(*)::int AS n FROM job_runs WHERE created_at >= now() - interval '24 hours' GROUP BY status`),
  ]);
  const dqCounts: Record<'OK' | 'MISMATCH' | 'ERROR' | 'SKIPPED', number> = { OK: 0, MISMATCH: 0, ERROR: 0, SKIPPED: 0 };
  let dqLast: string | null = null;
  for (const r of dq.rows) { if (r.status in dqCounts) dqCounts[r.status as keyof typeof dqCounts] = r.n; const l = iso(r.last); if (l && (!dqLast || l > dqLast)) dqLast = l; }
  const lastDqFailure = await pool.query(`SELECT id, error, finished_at FROM job_runs WHERE kind = 'dq.run' ORDER BY created_at DESC LIMIT 1`);
  const f = fresh.rows[0];
  return {
    generatedAt: new Date().toISOString(),
    workers: ws.map((w) => ({ ...w, alive: w.ageSeconds <= staleAfter })),
    queue,
    runsPerHour: hours,
    runs24h: Object.fromEntries(STATUSES.map((s) => [s, totals.rows.find((r) => r.status === s)?.n ?? 0])) as Record<(typeof STATUSES)[number], number>,
    failingUnits: failing.rows.map((r) => ({ table: r.table_name, branch: r.branch_id, status: r.status, runId: r.pipeline_run_id, at: iso(r.last_run_finished_at), error: r.error_details })),
    freshness: { units: f.units as number, neverLoaded: f.never as number, stale: f.stale as number, freshWithinSeconds: freshWithin,
      oldestAgeSeconds: f.oldest === null ? null : Math.round(Number(f.oldest)), newestLoadAt: iso(f.newest) },
    dq: { pairs: Object.values(dqCounts).reduce((a, b) => a + b, 0), ...dqCounts, lastCheckedAt: dqLast,
      lastRun: lastDqFailure.rows[0] ? { id: lastDqFailure.rows[0].id as string, failed: !!lastDqFailure.rows[0].error, error: lastDqFailure.rows[0].error as string | null } : null },
  };
}

export type OverviewData = Awaited<ReturnType<typeof overview>>;
