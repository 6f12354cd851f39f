import type pg from 'pg';
import { withTransaction, type Watermark } from '../db';

/**
 * etl_meta control tables (seed 000 §6). `control_state` is the authoritative
 * watermark store; it is advanced only after the lake commit that holds the
 * rows (a crash in between leaves it one load behind, and merges are
 * idempotent, so the rerun re-reads and converges). `etl_control` is its
 * queryable twin with the last outcome; `etl_run_log` is append-only.
 * Reading the watermarks is lib/db's `getWatermarks` (the reconciler reads them too).
 * Every row is keyed by the LAKE table (namespace + name) and branch: the same
 * source table loaded into two namespaces has two independent watermarks.
 */

export type { Watermark };

export type UnitStatus = 'SUCCESS' | 'FAILED' | 'REFUSED';

/** The later of two watermark texts (numbers numerically, canonical timestamps/dates as text). */
export function laterWatermark(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  const na = Number(a); const nb = Number(b);
  if (a.trim() !== '' && b.trim() !== '' && Number.isFinite(na) && Number.isFinite(nb)) return nb > na ? b : a;
  return b > a ? b : a;
}

export interface SuccessRecord {
  namespace: string; table: string; branch: string; runId: string; mode: string; watermark: Watermark; snapshotId: string | null;
  rows: number; startedAt: Date; finishedAt: Date;
}

/** After a lake commit: advance control_state and upsert etl_control, in one transaction. */
export async function recordSuccess(pool: pg.Pool, s: SuccessRecord): Promise<void> {
  await withTransaction(pool, async (c) => {
    await c.query(`INSERT INTO etl_meta.control_state (table_name, branch_id, last_cdc_value, last_date_value, last_run_id, last_mode, snapshot_id, namespace, updated_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now())
      ON CONFLICT (namespace, table_name, branch_id) DO UPDATE SET last_cdc_value = EXCLUDED.last_cdc_value, last_date_value = EXCLUDED.last_date_value,
        last_run_id = EXCLUDED.last_run_id, last_mode = EXCLUDED.last_mode, snapshot_id = EXCLUDED.snapshot_id, updated_at = now()`,
    [s.table, s.branch, s.watermark.cdc, s.watermark.date, s.runId, s.mode, s.snapshotId, s.namespace]);
    await c.query(`INSERT INTO etl_meta.etl_control (table_name, branch_id, last_cdc_value, last_date_value, status, row_count, duration_ms, pipeline_run_id,
        last_run_started_at, last_run_finished_at, last_success_at, error_details, namespace, updated_at)
      VALUES ($1, $2, $3, $4, 'SUCCESS', $5, $6, $7, $8, $9, $9, NULL, $10, now())
      ON CONFLICT (namespace, table_name, branch_id) DO UPDATE SET last_cdc_value = EXCLUDED.last_cdc_value, last_date_value = EXCLUDED.last_date_value,
        status = 'SUCCESS', row_count = EXCLUDED.row_count, duration_ms = EXCLUDED.duration_ms, pipeline_run_id = EXCLUDED.pipeline_run_id,
        last_run_started_at = EXCLUDED.last_run_started_at, last_run_finished_at = EXCLUDED.last_run_finished_at,
        last_success_at = EXCLUDED.last_success_at, error_details = NULL, updated_at = now()`,
    [s.table, s.branch, s.watermark.cdc, s.watermark.date, s.rows, s.finishedAt.getTime() - s.startedAt.getTime(), s.runId, s.startedAt, s.finishedAt, s.namespace]);
  });
}

/** A failed or refused unit: etl_control shows it, watermarks stay. */
export interface FailureRecord { namespace: string; table: string; branch: string; runId: string; status: UnitStatus; error: string; startedAt: Date; finishedAt: Date }

/** The control rows of a set of units: what `writeControl` writes in one transaction. */
export interface ControlRecords { successes: SuccessRecord[]; failures: FailureRecord[]; runLogs: RunLogRow[] }

const ukey = (r: { namespace: string; table: string; branch: string }) => `${r.namespace}\u0000${r.table}\u0000${r.branch}`;
/** One row per (namespace, table, branch), the last given: an upsert cannot touch a row twice in one statement. */
const lastPerKey = <T extends { namespace: string; table: string; branch: string }>(rows: T[]): T[] => [...new Map(rows.map((r) => [ukey(r), r])).values()];

/**
 * The control rows of many units in one transaction of at most three statements
 * (control_state + etl_control for the successes, etl_control for the failures,
 * etl_run_log for all), each a single INSERT over a JSON array of rows: the
 * bookkeeping of a run costs a few round trips whatever its number of units.
 * A success's watermark is still written only after its lake commit (the caller
 * writes it then); a success without a snapshot id (a unit that committed
 * nothing) keeps the control row's snapshot id.
 */
export async function writeControl(pool: pg.Pool, r: ControlRecords): Promise<void> {
  const ok = lastPerKey(r.successes);
  const bad = lastPerKey(r.failures).filter((f) => !ok.some((o) => ukey(o) === ukey(f)));
  if (!ok.length && !bad.length && !r.runLogs.length) return;
  await withTransaction(pool, async (c) => {
    if (ok.length) {
      const rows = JSON.stringify(ok.map((s) => ({
        namespace: s.namespace, table_name: s.table, branch_id: s.branch, cdc: s.watermark.cdc, date: s.watermark.date, run_id: s.runId, mode: s.mode,
        snapshot_id: s.snapshotId, rows: s.rows, duration_ms: s.finishedAt.getTime() - s.startedAt.getTime(), started_at: s.startedAt.toISOString(), finished_at: s.finishedAt.toISOString(),
      })));
      const cols = `namespace text, table_name text, branch_id text, cdc text, date text, run_id text, mode text, snapshot_id text, rows bigint, duration_ms bigint, started_at timestamptz, finished_at timestamptz`;
      await c.query(`INSERT INTO etl_meta.control_state (table_name, branch_id, last_cdc_value, last_date_value, last_run_id, last_mode, snapshot_id, namespace, updated_at)
        SELECT table_name, branch_id, cdc, date, run_id, mode, snapshot_id, namespace, now() FROM jsonb_to_recordset($1::jsonb) AS x(${cols})
        ON CONFLICT (namespace, table_name, branch_id) DO UPDATE SET last_cdc_value = EXCLUDED.last_cdc_value, last_date_value = EXCLUDED.last_date_value,
          last_run_id = EXCLUDED.last_run_id, last_mode = EXCLUDED.last_mode, snapshot_id = COALESCE(EXCLUDED.snapshot_id, control_state.snapshot_id), updated_at = now()`, [rows]);
      await c.query(`INSERT INTO etl_meta.etl_control (table_name, branch_id, last_cdc_value, last_date_value, status, row_count, duration_ms, pipeline_run_id,
          last_run_started_at, last_run_finished_at, last_success_at, error_details, namespace, updated_at)
        SELECT table_name, branch_id, cdc, date, 'SUCCESS', rows, duration_ms, run_id, started_at, finished_at, finished_at, NULL, namespace, now()
        FROM jsonb_to_recordset($1::jsonb) AS x(${cols})
        ON CONFLICT (namespace, table_name, branch_id) DO UPDATE SET last_cdc_value = EXCLUDED.last_cdc_value, last_date_value = EXCLUDED.last_date_value,
          status = 'SUCCESS', row_count = EXCLUDED.row_count, duration_ms = EXCLUDED.duration_ms, pipeline_run_id = EXCLUDED.pipeline_run_id,
          last_run_started_at = EXCLUDED.last_run_started_at, last_run_finished_at = EXCLUDED.last_run_finished_at,
          last_success_at = EXCLUDED.last_success_at, error_details = NULL, updated_at = now()`, [rows]);
    }
    if (bad.length) {
      const rows = JSON.stringify(bad.map((f) => ({
        namespace: f.namespace, table_name: f.table, branch_id: f.branch, status: f.status, run_id: f.runId, error: f.error,
        duration_ms: f.finishedAt.getTime() - f.startedAt.getTime(), started_at: f.startedAt.toISOString(), finished_at: f.finishedAt.toISOString(),
      })));
      await c.query(`INSERT INTO etl_meta.etl_control (table_name, branch_id, status, row_count, duration_ms, pipeline_run_id, last_run_started_at, last_run_finished_at, error_details, namespace, updated_at)
        SELECT table_name, branch_id, status, 0, duration_ms, run_id, started_at, finished_at, error, namespace, now()
        FROM jsonb_to_recordset($1::jsonb) AS x(namespace text, table_name text, branch_id text, status text, run_id text, error text, duration_ms bigint, started_at timestamptz, finished_at timestamptz)
        ON CONFLICT (namespace, table_name, branch_id) DO UPDATE SET status = EXCLUDED.status, row_count = 0, duration_ms = EXCLUDED.duration_ms,
          pipeline_run_id = EXCLUDED.pipeline_run_id, last_run_started_at = EXCLUDED.last_run_started_at, last_run_finished_at = EXCLUDED.last_run_finished_at,
          error_details = EXCLUDED.error_details, updated_at = now()`, [rows]);
    }
    if (r.runLogs.length) {
      const rows = JSON.stringify(r.runLogs.map((l, i) => ({
        i, run_id: l.runId, table_name: l.table, branch_id: l.branch, mode: l.mode, category: l.category, status: l.status, rows: l.rows,
        started_at: l.startedAt.toISOString(), finished_at: l.finishedAt.toISOString(), duration_ms: l.finishedAt.getTime() - l.startedAt.getTime(),
        attempts: l.attempts, disposition: l.writeDisposition, drift: l.schemaDiscrepancy ?? null, error: l.error, namespace: l.namespace,
        dropped: l.droppedDuplicates ?? 0, deleted: l.rowsDeleted ?? 0,
      })));
      // ORDER BY i: ids follow the order the units were recorded in
      await c.query(`INSERT INTO etl_meta.etl_run_log (pipeline_run_id, table_name, branch_id, mode, category, status, row_count, started_at, finished_at,
          duration_ms, attempts, write_disposition, schema_discrepancy, error_details, namespace, dropped_duplicates, rows_deleted)
        SELECT run_id, table_name, branch_id, mode, category, status, rows, started_at, finished_at, duration_ms, attempts, disposition, drift, error, namespace, dropped, deleted
        FROM jsonb_to_recordset($1::jsonb) AS x(i int, run_id text, table_name text, branch_id text, mode text, category text, status text, rows bigint,
          started_at timestamptz, finished_at timestamptz, duration_ms bigint, attempts int, disposition text, drift jsonb, error text, namespace text, dropped bigint, deleted bigint)
        ORDER BY i`, [rows]);
    }
  });
}

export async function recordFailure(pool: pg.Pool, f: FailureRecord): Promise<void> {
  await pool.query(`INSERT INTO etl_meta.etl_control (table_name, branch_id, status, row_count, duration_ms, pipeline_run_id, last_run_started_at, last_run_finished_at, error_details, namespace, updated_at)
    VALUES ($1, $2, $3, 0, $4, $5, $6, $7, $8, $9, now())
    ON CONFLICT (namespace, table_name, branch_id) DO UPDATE SET status = EXCLUDED.status, row_count = 0, duration_ms = EXCLUDED.duration_ms,
      pipeline_run_id = EXCLUDED.pipeline_run_id, last_run_started_at = EXCLUDED.last_run_started_at, last_run_finished_at = EXCLUDED.last_run_finished_at,
      error_details = EXCLUDED.error_details, updated_at = now()`,
  [f.table, f.branch, f.status, f.finishedAt.getTime() - f.startedAt.getTime(), f.runId, f.startedAt, f.finishedAt, f.error, f.namespace]);
}

export interface RunLogRow {
  runId: string; namespace: string; table: string; branch: string; mode: string; category: string; status: UnitStatus; rows: number;
  startedAt: Date; finishedAt: Date; attempts: number; writeDisposition: string | null; schemaDiscrepancy: unknown; error: string | null;
  /** Rows dropped as duplicate keys (`dedupe: latest`). (Default: 0) */
  droppedDuplicates?: number;
  /** Rows this unit deleted (or soft-deleted) in the lake: tables.json `deletes: detect`. (Default: 0) */
  rowsDeleted?: number;
}

export async function appendRunLog(pool: pg.Pool, r: RunLogRow): Promise<void> {
  await pool.query(`INSERT INTO etl_meta.etl_run_log (pipeline_run_id, table_name, branch_id, mode, category, status, row_count, started_at, finished_at,
      duration_ms, attempts, write_disposition, schema_discrepancy, error_details, namespace, dropped_duplicates, rows_deleted)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`,
  [r.runId, r.table, r.branch, r.mode, r.category, r.status, r.rows, r.startedAt, r.finishedAt, r.finishedAt.getTime() - r.startedAt.getTime(),
    r.attempts, r.writeDisposition, r.schemaDiscrepancy === null || r.schemaDiscrepancy === undefined ? null : JSON.stringify(r.schemaDiscrepancy), r.error,
    r.namespace, r.droppedDuplicates ?? 0, r.rowsDeleted ?? 0]);
}

/** Read side for `/api/v1/etl/control`. */
export async function listEtlControl(pool: pg.Pool, f: { table?: string; branch?: string; namespace?: string } = {}): Promise<Record<string, unknown>[]> {
  const r = await pool.query(`SELECT * FROM etl_meta.etl_control WHERE ($1::text IS NULL OR table_name = $1) AND ($2::text IS NULL OR branch_id = $2)
      AND ($3::text IS NULL OR namespace = $3)
    ORDER BY namespace, table_name, branch_id`, [f.table ?? null, f.branch ?? null, f.namespace ?? null]);
  return r.rows;
}

/** Read side for `/api/v1/etl/runs`: newest first. */
export async function listEtlRuns(pool: pg.Pool, f: { runId?: string; table?: string; branch?: string; namespace?: string; status?: string; limit?: number } = {}): Promise<Record<string, unknown>[]> {
  const r = await pool.query(`SELECT * FROM etl_meta.etl_run_log WHERE ($1::text IS NULL OR pipeline_run_id = $1) AND ($2::text IS NULL OR table_name = $2)
      AND ($3::text IS NULL OR branch_id = $3) AND ($4::text IS NULL OR status = $4) AND ($6::text IS NULL OR namespace = $6) ORDER BY id DESC LIMIT $5`,
  [f.runId ?? null, f.table ?? null, f.branch ?? null, f.status ?? null, Math.min(f.limit ?? 200, 5000), f.namespace ?? null]);
  return r.rows;
}
