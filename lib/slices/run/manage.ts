import type pg from 'pg';
import { isRunLocked, runRefused } from './run-lock';
import { countByStatus, getRun, getSlices, type SliceRow } from './state';
import type { StriimClient } from './striim-client';
import { AppError } from '../../errors';

async function refuseWhileRunning(pool: pg.Pool, runId: number, what: string) {
  if (await isRunLocked(pool, runId)) throw runRefused(`slices: run ${runId} is running — stop it before ${what}`);
}

/**
 * Stop, undeploy and drop every Striim app and namespace of a run (`ILA_<run>_*`):
 * those the run recorded and any `mon` shows. Returns what it dropped.
 */
export async function striimCleanup(pool: pg.Pool, runId: number, client: StriimClient, prefix = 'ILA_'): Promise<string[]> {
  const run = await getRun(pool, runId);
  const recorded = run ? (await getSlices(pool, runId, { generation: run.generation })).filter((x) => x.namespace) : [];
  const nsPrefix = `${prefix}${runId}_`;
  const namespaces = new Set(recorded.map((x) => x.namespace!));
  const apps = new Set(recorded.filter((x) => x.status !== 'COMPLETED').map((x) => x.appname!).filter(Boolean));
  for (const a of await client.mon()) {
    if (a.namespace.startsWith(nsPrefix)) { namespaces.add(a.namespace); apps.add(a.fullName); }
  }
  const done: string[] = [];
  for (const app of apps) {
    // Best effort by design: an app may already be stopped or undeployed; only the DROP's outcome is reported.
    await client.exec(`STOP APPLICATION ${app};`).catch(() => null);
    await client.exec(`UNDEPLOY APPLICATION ${app};`).catch(() => null); // cleanup of what may not exist: the outcome is checked by the caller (d === null)
    const d = await client.exec(`DROP APPLICATION ${app} CASCADE;`).catch(() => null); // cleanup of what may not exist: the outcome is checked by the caller (d === null)
    if (d?.ok) done.push(app);
  }
  for (const ns of namespaces) {
    const d = await client.exec(`DROP NAMESPACE ${ns} CASCADE;`).catch(() => null); // cleanup of what may not exist: the outcome is checked by the caller (d === null)
    if (d?.ok) done.push(ns);
  }
  return done;
}

/**
 * `reset`: re-queue FAILED slices as NEW (plus COMPLETED-FAILEDDROP and
 * QUARANTINED when asked; quarantined slices get their attempt counter back).
 */
export async function resetRun(pool: pg.Pool, runId: number, opts: { includeFaileddrop?: boolean; includeQuarantined?: boolean; striim?: StriimClient | null; prefix?: string } = {}): Promise<{ requeued: number; cleaned: string[] }> {
  await refuseWhileRunning(pool, runId, 'resetting it');
  const run = await getRun(pool, runId);
  if (!run) throw new AppError('not_found', `slices: run ${runId} not found`);
  const cleaned = opts.striim ? await striimCleanup(pool, runId, opts.striim, opts.prefix) : [];
  const statuses = ['FAILED', ...(opts.includeFaileddrop ? ['COMPLETED-FAILEDDROP'] : []), ...(opts.includeQuarantined ? ['QUARANTINED'] : [])];
  const r = await pool.query(
    `update striim_orchestration set status = 'NEW', iscurrentrow = true,
       attempts = case when status = 'QUARANTINED' then 0 else attempts end,
       notes = 'reset from ' || status || coalesce(': ' || notes, ''), started_datetime = null, finished_datetime = null, updated_at = now()
     where uniquerunid = $1 and generation = $2 and status = any($3)`, [runId, run.generation, statuses]);
  if (r.rowCount) await pool.query(`update slice_runs set verdict = null, fresh_marker = true, updated_at = now() where run_id = $1`, [runId]);
  await pool.query(`insert into slice_run_events (run_id, level, message) values ($1, 'info', $2)`,
    [runId, `reset: ${r.rowCount} slice(s) re-queued (${statuses.join(', ')})${cleaned.length ? `; Striim cleanup dropped ${cleaned.length}` : ''}`]);
  return { requeued: r.rowCount ?? 0, cleaned };
}

/**
 * `clear`: retire the run from the active view (iscurrentrow = false, history
 * kept, fresh-run marker removed); `hard` deletes its rows, events and run row.
 */
export async function clearRun(pool: pg.Pool, runId: number, opts: { hard?: boolean; striim?: StriimClient | null; prefix?: string } = {}): Promise<{ rows: number; cleaned: string[] }> {
  await refuseWhileRunning(pool, runId, 'clearing it');
  const cleaned = opts.striim ? await striimCleanup(pool, runId, opts.striim, opts.prefix) : [];
  if (opts.hard) {
    const r = await pool.query('delete from striim_orchestration where uniquerunid = $1', [runId]);
    await pool.query('delete from slice_run_events where run_id = $1', [runId]);
    await pool.query('delete from slice_runs where run_id = $1', [runId]);
    return { rows: r.rowCount ?? 0, cleaned };
  }
  const r = await pool.query('update striim_orchestration set iscurrentrow = false, updated_at = now() where uniquerunid = $1 and iscurrentrow', [runId]);
  await pool.query('update slice_runs set fresh_marker = false, updated_at = now() where run_id = $1', [runId]);
  await pool.query(`insert into slice_run_events (run_id, level, message) values ($1, 'info', $2)`, [runId, `clear: ${r.rowCount} row(s) retired from the active view`]);
  return { rows: r.rowCount ?? 0, cleaned };
}

/** `status`: one run (counts, in-flight, failed, optionally rows) or every run. */
export async function getStatus(pool: pg.Pool, opts: { runId?: number; allRuns?: boolean; failed?: boolean; rows?: boolean }) {
  if (opts.allRuns || opts.runId === undefined) {
    const runs = await pool.query(`select r.run_id, r.generation, r.executor, r.verdict, r.watermark_label, r.watermark_value, r.started_at, r.finished_at,
        (select json_object_agg(status, n) from (select status, count(*)::int n from striim_orchestration o
           where o.uniquerunid = r.run_id and o.generation = r.generation group by status) c) as counts,
        (select count(*)::int from striim_orchestration o where o.uniquerunid = r.run_id and o.iscurrentrow) as current_rows
      from slice_runs r order by r.run_id`);
    return { runs: runs.rows };
  }
  const run = await getRun(pool, opts.runId);
  if (!run) return { runId: opts.runId, found: false };
  const counts = await countByStatus(pool, opts.runId, run.generation);
  const slices = await getSlices(pool, opts.runId, { generation: run.generation });
  const pick = (x: SliceRow) => ({
    slice: x.roworder, status: x.status, target: x.targettbl, namespace: x.namespace, attempts: x.attempts,
    started: x.started_datetime, finished: x.finished_datetime, rowsRead: x.rows_read, rowsWritten: x.rows_written, notes: x.notes,
    ...(opts.rows ? { query: x.query, lo: x.slice_lo, hi: x.slice_hi, iscurrentrow: x.iscurrentrow, lastError: x.last_error } : {}),
  });
  return {
    runId: opts.runId, found: true, executor: run.executor, verdict: run.verdict, generation: run.generation,
    watermark: run.watermark_value ? { label: run.watermark_label, value: run.watermark_value, capturedAt: run.watermark_captured_at, sourceDsn: run.watermark_source_dsn } : null,
    api: { retries: run.api_retries, reauths: run.api_reauths },
    counts,
    running: await isRunLocked(pool, opts.runId),
    inFlight: slices.filter((x) => x.status === 'RUNNING').map(pick),
    failed: slices.filter((x) => x.status === 'FAILED' || x.status === 'QUARANTINED').map(pick),
    ...(opts.rows ? { rows: (opts.failed ? slices.filter((x) => x.status === 'FAILED' || x.status === 'QUARANTINED') : slices).map(pick) } : {}),
  };
}

/** `logs`: the run's log lines after `afterId`, newest `lines` of them. */
export async function readLogs(pool: pg.Pool, runId: number, opts: { lines?: number; errors?: boolean; afterId?: number } = {}) {
  const r = await pool.query<{ id: string; ts: Date; level: string; slice: number | null; message: string }>(
    `select * from (select id, ts, level, slice, message from slice_run_events
       where run_id = $1 and id > $2 ${opts.errors ? "and level = 'error'" : ''} order by id desc limit $3) x order by id`,
    [runId, opts.afterId ?? 0, opts.lines ?? 50]);
  return r.rows.map((x) => ({ ...x, id: Number(x.id) }));
}
