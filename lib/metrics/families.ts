import type pg from 'pg';
import { bucketColumns, cumulativeOf, dbHistogram } from './histogram';

/**
 * The metric families read from the database at scrape time: what every
 * worker and web process recorded (runs, ETL units, DQ results, flows,
 * workers), so one scrape of one web process sees the whole installation.
 * Label sets stay bounded: job kinds, statuses, tables and branches — never
 * run ids, workers' ids or error texts.
 */
type Value = { labels: Record<string, string>; value: number };
type Family = { name: string; help: string; type: 'gauge' | 'counter'; sql: string; map: (row: Record<string, unknown>) => Value };

/** Run durations, seconds: a probe takes well under a second, an initial load hours. */
export const RUN_BUCKETS = [0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600, 14_400, 86_400] as const;
/** ETL unit (table × branch) durations, seconds. */
export const UNIT_BUCKETS = [0.05, 0.25, 1, 5, 15, 60, 300, 1800, 7200] as const;
/** How late a schedule fired, seconds (the tick is 2 s). */
export const FIRE_DELAY_BUCKETS = [1, 2.5, 5, 10, 30, 60, 300] as const;

/** The scheduler's advisory lock key (lib/flows/scheduler.ts) as pg_locks shows a bigint key: high and low 32 bits. */
function advisoryKeyParts(key: number): { classid: number; objid: number } {
  const k = BigInt(key);
  return { classid: Number(k >> 32n), objid: Number(k & 0xffffffffn) };
}

const ETL_TABLE = `case namespace when 'etl' then table_name else namespace || '.' || table_name end`;

export function families(schedulerLockKey: number): Family[] {
  const lock = advisoryKeyParts(schedulerLockKey);
  return [
    {
      name: 'tributary_job_queue_depth', help: 'Runs waiting in the queue, by job kind.', type: 'gauge',
      sql: `select kind, count(*)::float8 as n from job_runs where status = 'queued' group by kind`,
      map: (r) => ({ labels: { kind: String(r.kind) }, value: Number(r.n) }),
    },
    {
      name: 'tributary_job_queue_oldest_age_seconds', help: 'Age of the oldest queued run, by job kind.', type: 'gauge',
      sql: `select kind, extract(epoch from now() - min(created_at))::float8 as n from job_runs where status = 'queued' group by kind`,
      map: (r) => ({ labels: { kind: String(r.kind) }, value: Number(r.n) }),
    },
    {
      name: 'tributary_job_runs_running', help: 'Runs executing now, by job kind.', type: 'gauge',
      sql: `select kind, count(*)::float8 as n from job_runs where status = 'running' group by kind`,
      map: (r) => ({ labels: { kind: String(r.kind) }, value: Number(r.n) }),
    },
    {
      name: 'tributary_job_runs_total', help: 'Finished runs, by job kind and final status (succeeded, failed, cancelled).', type: 'counter',
      sql: `select kind, status, count(*)::float8 as n from job_runs where status in ('succeeded', 'failed', 'cancelled') group by kind, status`,
      map: (r) => ({ labels: { kind: String(r.kind), status: String(r.status) }, value: Number(r.n) }),
    },
    {
      name: 'tributary_etl_rows_loaded_total', help: 'Rows written to the lake by ETL units, by lake table and branch.', type: 'counter',
      sql: `select ${ETL_TABLE} as t, branch_id, sum(row_count)::float8 as n from etl_meta.etl_run_log where status = 'SUCCESS' group by 1, 2`,
      map: (r) => ({ labels: { table: String(r.t), branch: String(r.branch_id) }, value: Number(r.n) }),
    },
    {
      name: 'tributary_etl_rows_deleted_total', help: 'Rows deleted in the lake by ETL units (deletes: detect), by lake table and branch.', type: 'counter',
      sql: `select ${ETL_TABLE} as t, branch_id, sum(rows_deleted)::float8 as n from etl_meta.etl_run_log where status = 'SUCCESS' group by 1, 2`,
      map: (r) => ({ labels: { table: String(r.t), branch: String(r.branch_id) }, value: Number(r.n) }),
    },
    {
      name: 'tributary_etl_units_total', help: 'ETL units (table × branch) finished, by lake table and status (SUCCESS, FAILED, REFUSED).', type: 'counter',
      sql: `select ${ETL_TABLE} as t, status, count(*)::float8 as n from etl_meta.etl_run_log group by 1, 2`,
      map: (r) => ({ labels: { table: String(r.t), status: String(r.status) }, value: Number(r.n) }),
    },
    {
      name: 'tributary_etl_freshness_seconds', help: 'Seconds since the last successful load, by lake table and branch (the Freshness page).', type: 'gauge',
      sql: `select ${ETL_TABLE} as t, branch_id, extract(epoch from now() - last_success_at)::float8 as n from etl_meta.etl_control where last_success_at is not null`,
      map: (r) => ({ labels: { table: String(r.t), branch: String(r.branch_id) }, value: Math.max(0, Number(r.n)) }),
    },
    {
      // issue 24: assets with a freshness expectation (a bounded set: the configured ones), as the scheduler leader's check keeps them
      name: 'tributary_asset_freshness_lag_seconds', help: 'Seconds since the asset\'s last successful load (a lake table\'s stalest branch) or build, for assets with a freshness expectation.', type: 'gauge',
      sql: `select asset, extract(epoch from now() - last_success_at)::float8 as n from asset_freshness where last_success_at is not null`,
      map: (r) => ({ labels: { asset: String(r.asset) }, value: Math.max(0, Number(r.n)) }),
    },
    {
      name: 'tributary_asset_freshness_status', help: 'Freshness status of an asset at the last check: 1 for its status (pass, warn, error, unknown), 0 for the others.', type: 'gauge',
      sql: `select a.asset, s.status, (a.status = s.status)::int::float8 as n from asset_freshness a cross join (values ('pass'), ('warn'), ('error'), ('unknown')) s(status)`,
      map: (r) => ({ labels: { asset: String(r.asset), status: String(r.status) }, value: Number(r.n) }),
    },
    {
      name: 'tributary_dq_checks_total', help: 'Data-quality checks, by table, branch and outcome (OK, MISMATCH, ERROR, SKIPPED).', type: 'counter',
      sql: `select table_name, branch_id, status, count(*)::float8 as n from etl_meta.etl_dq_results group by 1, 2, 3`,
      map: (r) => ({ labels: { table: String(r.table_name), branch: String(r.branch_id), status: String(r.status) }, value: Number(r.n) }),
    },
    {
      name: 'tributary_dq_last_ok', help: 'Whether the latest data-quality check of a table × branch was OK (1) or not (0).', type: 'gauge',
      sql: `select distinct on (table_name, branch_id) table_name, branch_id, (status = 'OK')::int::float8 as n
              from etl_meta.etl_dq_results order by table_name, branch_id, checked_at desc, id desc`,
      map: (r) => ({ labels: { table: String(r.table_name), branch: String(r.branch_id) }, value: Number(r.n) }),
    },
    {
      name: 'tributary_scheduler_leader', help: 'Whether a flow scheduler holds leadership (1) or none does (0).', type: 'gauge',
      // advisory locks are per database: another installation on the same server holds its own
      sql: `select count(*)::float8 as n from pg_locks where locktype = 'advisory' and granted and classid = ${lock.classid} and objid = ${lock.objid}
              and database = (select oid from pg_database where datname = current_database())`,
      map: (r) => ({ labels: {}, value: Math.min(1, Number(r.n)) }),
    },
    {
      name: 'tributary_mail_send_failures_total', help: 'Alert mails (mail.send runs) that failed.', type: 'counter',
      sql: `select count(*)::float8 as n from job_runs where kind = 'mail.send' and status = 'failed'`,
      map: (r) => ({ labels: {}, value: Number(r.n) }),
    },
    {
      name: 'tributary_workers', help: 'Workers that beat within the last 60 s (alive) and those whose heartbeat is older (stale).', type: 'gauge',
      sql: `select s.state, count(w.id)::float8 as n from (values ('alive'), ('stale')) s(state)
              left join workers w on (case when w.heartbeat_at > now() - interval '60 seconds' then 'alive' else 'stale' end) = s.state group by s.state`,
      map: (r) => ({ labels: { state: String(r.state) }, value: Number(r.n) }),
    },
    {
      name: 'tributary_worker_heartbeat_age_max_seconds', help: 'Age of the oldest worker heartbeat (0 with no worker).', type: 'gauge',
      sql: `select coalesce(extract(epoch from now() - min(heartbeat_at)), 0)::float8 as n from workers`,
      map: (r) => ({ labels: {}, value: Number(r.n) }),
    },
  ];
}

/** The histogram families, counted in SQL. */
export function histograms(pool: Pick<pg.Pool, 'query'>) {
  const runs = dbHistogram('tributary_job_run_duration_seconds', 'Duration of finished runs, by job kind.', RUN_BUCKETS, async () => {
    const r = await pool.query(`select kind, count(*)::float8 as count, coalesce(sum(d), 0)::float8 as sum, ${bucketColumns('d', RUN_BUCKETS)}
      from (select kind, extract(epoch from finished_at - started_at) as d from job_runs
             where status in ('succeeded', 'failed', 'cancelled') and started_at is not null and finished_at is not null) x group by kind`);
    return r.rows.map((x) => ({ labels: { kind: String(x.kind) }, count: Number(x.count), sum: Number(x.sum), cumulative: cumulativeOf(x, RUN_BUCKETS) }));
  });
  const units = dbHistogram('tributary_etl_unit_duration_seconds', 'Duration of ETL units (table × branch), by lake table.', UNIT_BUCKETS, async () => {
    const r = await pool.query(`select t, count(*)::float8 as count, coalesce(sum(d), 0)::float8 as sum, ${bucketColumns('d', UNIT_BUCKETS)}
      from (select ${ETL_TABLE} as t, duration_ms / 1000.0 as d from etl_meta.etl_run_log where duration_ms is not null) x group by t`);
    return r.rows.map((x) => ({ labels: { table: String(x.t) }, count: Number(x.count), sum: Number(x.sum), cumulative: cumulativeOf(x, UNIT_BUCKETS) }));
  });
  const fire = dbHistogram('tributary_scheduler_fire_delay_seconds', 'How late scheduled flow runs were created after their scheduled time.', FIRE_DELAY_BUCKETS, async () => {
    const r = await pool.query(`select count(*)::float8 as count, coalesce(sum(d), 0)::float8 as sum, ${bucketColumns('d', FIRE_DELAY_BUCKETS)}
      from (select greatest(0, extract(epoch from created_at - scheduled_for)) as d from flow_runs where scheduled_for is not null) x`);
    return r.rows.filter((x) => Number(x.count) > 0).map((x) => ({ labels: {}, count: Number(x.count), sum: Number(x.sum), cumulative: cumulativeOf(x, FIRE_DELAY_BUCKETS) }));
  });
  return [runs, units, fire];
}
