import type pg from 'pg';
import type { DqResult, DqStatus } from './result';

const COLS = [
  'pipeline_run_id', 'table_name', 'branch_id', 'window_start', 'window_end', 'window_note', 'lake_snapshot_id',
  'oracle_row_count', 'iceberg_row_count', 'row_count_delta', 'hash_matched', 'hash_only_in_oracle', 'hash_only_in_iceberg',
  'hash_mismatch', 'hash_total_delta', 'hash_columns', 'columns_only_in_oracle', 'columns_only_in_iceberg', 'example_keys',
  'repair', 'status', 'error_details', 'checked_at',
] as const;

/** Append result rows to etl_meta.etl_dq_results (one statement). */
export async function writeDqResults(pool: Pick<pg.Pool, 'query'>, rows: DqResult[]): Promise<void> {
  if (!rows.length) return;
  const values: unknown[] = [];
  const tuples = rows.map((r) => {
    const v = [
      r.pipelineRunId, r.table, r.branch, r.windowStart, r.windowEnd, r.windowNote, r.lakeSnapshotId,
      r.oracleRowCount, r.icebergRowCount, r.rowCountDelta, r.hashMatched, r.hashOnlyInOracle, r.hashOnlyInIceberg,
      r.hashMismatch, r.hashTotalDelta, r.hashColumns, r.columnsOnlyInOracle, r.columnsOnlyInIceberg,
      r.exampleKeys === null || r.exampleKeys === undefined ? null : JSON.stringify(r.exampleKeys),
      r.repair === null || r.repair === undefined ? null : JSON.stringify(r.repair),
      r.status, r.errorDetails, r.checkedAt,
    ];
    const ph = v.map((x) => { values.push(x); return `$${values.length}`; });
    return `(${ph.join(', ')})`;
  });
  await pool.query(`INSERT INTO etl_meta.etl_dq_results (${COLS.join(', ')}) VALUES ${tuples.join(', ')}`, values);
}

export interface DqResultsQuery {
  /** One run (`dq-…`). */
  runId?: string;
  table?: string;
  branch?: string;
  status?: DqStatus;
  /** Only the latest run's rows (ignored with runId). (Default: false) */
  latest?: boolean;
  /** (Default: 200, at most 5000) */
  limit?: number;
  /** Rows with id below this, for paging. */
  beforeId?: number;
}

/** A stored result row as the API returns it (snake_case, as in the table). */
export type DqResultRow = Record<string, unknown> & { id: number; pipeline_run_id: string; status: DqStatus };

/** Read side for `/api/v1/dq/results`: newest first. */
export async function listDqResults(pool: Pick<pg.Pool, 'query'>, q: DqResultsQuery = {}): Promise<DqResultRow[]> {
  const where: string[] = [];
  const vals: unknown[] = [];
  const add = (sql: string, v: unknown) => { vals.push(v); where.push(sql.replace('?', `$${vals.length}`)); };
  if (q.runId) add('pipeline_run_id = ?', q.runId);
  else if (q.latest) where.push(`pipeline_run_id = (SELECT pipeline_run_id FROM etl_meta.etl_dq_results ORDER BY id DESC LIMIT 1)`);
  if (q.table) add('table_name = ?', q.table);
  if (q.branch) add('branch_id = ?', q.branch);
  if (q.status) add('status = ?', q.status);
  if (q.beforeId) add('id < ?', q.beforeId);
  vals.push(Math.min(Math.max(q.limit ?? 200, 1), 5000));
  const r = await pool.query(
    `SELECT id::int AS id, pipeline_run_id, table_name, branch_id, window_start, window_end, window_note, lake_snapshot_id,
       oracle_row_count::float8 AS oracle_row_count, iceberg_row_count::float8 AS iceberg_row_count, row_count_delta::float8 AS row_count_delta,
       hash_matched::float8 AS hash_matched, hash_only_in_oracle::float8 AS hash_only_in_oracle, hash_only_in_iceberg::float8 AS hash_only_in_iceberg,
       hash_mismatch::float8 AS hash_mismatch, hash_total_delta::float8 AS hash_total_delta, hash_columns, columns_only_in_oracle,
       columns_only_in_iceberg, example_keys, repair, status, error_details, checked_at
     FROM etl_meta.etl_dq_results ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY id DESC LIMIT $${vals.length}`, vals);
  return r.rows as DqResultRow[];
}
