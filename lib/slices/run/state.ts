import type pg from 'pg';

export const STATUSES = ['NEW', 'RUNNING', 'COMPLETED', 'COMPLETED-FAILEDDROP', 'FAILED', 'QUARANTINED'] as const;
export type SliceStatus = (typeof STATUSES)[number];

/** One row of striim_orchestration, as the engine uses it. */
export interface SliceRow {
  id: number;
  roworder: number;
  uniquerunid: number;
  generation: number;
  query: string;
  appname: string | null;
  targettbl: string;
  status: SliceStatus;
  namespace: string | null;
  started_datetime: Date | null;
  finished_datetime: Date | null;
  notes: string | null;
  iscurrentrow: boolean;
  attempts: number;
  last_error: string | null;
  slice_lo: string | null;
  slice_hi: string | null;
  slice_predicate: string | null;
  rows_read: number | null;
  rows_written: number | null;
  executor: string | null;
}

/** One row of slice_runs. */
export interface RunRow {
  run_id: number;
  generation: number;
  executor: 'striim' | 'native';
  template_tql: string | null;
  query_file: string | null;
  settings: Record<string, unknown>;
  source_engine: string | null;
  watermark_label: string | null;
  watermark_value: string | null;
  watermark_captured_at: Date | null;
  watermark_source_dsn: string | null;
  fresh_marker: boolean;
  verdict: string | null;
  lock_holder: string | null;
  api_retries: number;
  api_reauths: number;
  started_at: Date | null;
  finished_at: Date | null;
}

const SLICE_COLS = `id::int as id, roworder, uniquerunid, generation, query, appname, targettbl, status, namespace, started_datetime,
  finished_datetime, notes, iscurrentrow, attempts, last_error, slice_lo, slice_hi, slice_predicate,
  rows_read::float8 as rows_read, rows_written::float8 as rows_written, executor`;

export async function getRun(pool: pg.Pool, runId: number): Promise<RunRow | null> {
  const r = await pool.query<RunRow>('select * from slice_runs where run_id = $1', [runId]);
  return r.rows[0] ?? null;
}

/** The run's slices: its latest registration generation, in roworder. */
export async function getSlices(pool: pg.Pool, runId: number, opts: { generation?: number; status?: string[] } = {}): Promise<SliceRow[]> {
  const gen = opts.generation ?? (await getRun(pool, runId))?.generation;
  if (gen === undefined) return [];
  const params: unknown[] = [runId, gen];
  let where = 'uniquerunid = $1 and generation = $2';
  if (opts.status?.length) { params.push(opts.status); where += ' and status = any($3)'; }
  const r = await pool.query<SliceRow>(`select ${SLICE_COLS} from striim_orchestration where ${where} order by roworder`, params);
  return r.rows;
}

export async function getSlice(pool: pg.Pool, id: number): Promise<SliceRow> {
  const r = await pool.query<SliceRow>(`select ${SLICE_COLS} from striim_orchestration where id = $1`, [id]);
  return r.rows[0];
}

/** Count of the run's current rows (iscurrentrow), the seed's fresh-run guard input. */
export async function countCurrentRows(pool: pg.Pool, runId: number): Promise<number> {
  const r = await pool.query<{ n: number }>('select count(*)::int as n from striim_orchestration where uniquerunid = $1 and iscurrentrow', [runId]);
  return r.rows[0].n;
}

export async function markRunning(pool: pg.Pool, id: number, p: { namespace: string | null; appname: string | null; executor: string }): Promise<void> {
  await pool.query(
    `update striim_orchestration set status = 'RUNNING', started_datetime = now(), finished_datetime = null,
       namespace = $2, appname = $3, executor = $4, attempts = attempts + 1, notes = null,
       rows_read = null, rows_written = null, updated_at = now()
     where id = $1`,
    [id, p.namespace, p.appname, p.executor],
  );
}

/** Live row counters (native executor, or `mon` when it reports them). */
export async function markProgress(pool: pg.Pool, id: number, rowsRead: number, rowsWritten: number): Promise<void> {
  await pool.query('update striim_orchestration set rows_read = $2, rows_written = $3, updated_at = now() where id = $1', [id, rowsRead, rowsWritten]);
}

/**
 * Record a slice's end. A failure reaching maxAttempts attempts becomes
 * QUARANTINED (the run goes on without it). Returns the stored status.
 */
export async function markOutcome(
  pool: pg.Pool, id: number,
  o: { status: 'COMPLETED' | 'COMPLETED-FAILEDDROP' | 'FAILED'; notes: string; rowsRead?: number | null; rowsWritten?: number | null },
  maxAttempts: number,
): Promise<SliceStatus> {
  const r = await pool.query<{ status: SliceStatus }>(
    `update striim_orchestration set
       status = case when $2 = 'FAILED' and attempts >= $5 then 'QUARANTINED' else $2 end,
       notes = case when $2 = 'FAILED' and attempts >= $5 then $3 || ' [quarantined after ' || attempts || ' attempts]' else $3 end,
       last_error = case when $2 = 'FAILED' then $3 else last_error end,
       finished_datetime = now(),
       rows_read = coalesce($4, rows_read), rows_written = coalesce($6, rows_written),
       updated_at = now()
     where id = $1 returning status`,
    [id, o.status, o.notes, o.rowsRead ?? null, maxAttempts, o.rowsWritten ?? null],
  );
  return r.rows[0].status;
}

/** Counts by status of the run's latest generation. */
export async function countByStatus(pool: pg.Pool, runId: number, generation?: number): Promise<Record<SliceStatus, number> & { total: number }> {
  const gen = generation ?? (await getRun(pool, runId))?.generation ?? -1;
  const r = await pool.query<{ status: SliceStatus; n: number }>(
    'select status, count(*)::int as n from striim_orchestration where uniquerunid = $1 and generation = $2 group by status', [runId, gen]);
  const out = Object.fromEntries(STATUSES.map((s) => [s, 0])) as Record<SliceStatus, number> & { total: number };
  out.total = 0;
  for (const x of r.rows) { out[x.status] = x.n; out.total += x.n; }
  return out;
}

/**
 * Whether a registration generation has started: some slice left its initial
 * state (not NEW, attempted, or stamped with a start). A reset slice goes back
 * to NEW but keeps its attempts, so a reset run still counts as started.
 */
export async function hasStarted(pool: pg.Pool, runId: number, generation: number): Promise<boolean> {
  const r = await pool.query<{ started: boolean }>(
    `select exists (select 1 from striim_orchestration where uniquerunid = $1 and generation = $2
                      and (status <> 'NEW' or attempts > 0 or started_datetime is not null)) as started`, [runId, generation]);
  return r.rows[0].started;
}

/** Choose the executor of a never-started run (the run row and its slices). */
export async function setExecutor(pool: pg.Pool, runId: number, generation: number, executor: 'striim' | 'native'): Promise<void> {
  await pool.query('update slice_runs set executor = $2, updated_at = now() where run_id = $1', [runId, executor]);
  await pool.query('update striim_orchestration set executor = $3, updated_at = now() where uniquerunid = $1 and generation = $2', [runId, generation, executor]);
}
