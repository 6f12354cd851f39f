import type pg from 'pg';

/** Filters of the DQ history (the page keeps them in its URL). */
export interface DqHistoryFilter {
  table?: string; branch?: string;
  status?: 'OK' | 'MISMATCH' | 'ERROR' | 'SKIPPED';
  /** ISO time or date: only checks at or after it. */
  since?: string;
  /** (Default: 2000, at most 5000) */
  limit?: number;
}

/** One check of one table × branch: a point of its trend. */
export interface DqPoint {
  id: number; runId: string; table: string; branch: string; status: string; checkedAt: string;
  sourceRows: number | null; lakeRows: number | null;
  /** Row-count delta (source − lake). */
  delta: number | null;
  /** Keys only in the source + only in the lake + differing hashes. */
  mismatches: number | null;
  hashMismatch: number | null; onlyInSource: number | null; onlyInLake: number | null;
  repaired: boolean; error: string | null;
  /** The check ran against kept staging (a `dq.run` self-test), so a re-check must too. */
  selfTest: boolean;
}

/** A `dq.run` job that failed before or while writing results: shown with its error. */
export interface DqFailedRun { id: string; createdAt: string; finishedAt: string | null; createdBy: string | null; params: unknown; error: string }

const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

/**
 * DQ errors are written for whoever reads them; the engine's words name CLI
 * flags and commands, which the panel's readers do not type. Known phrasings
 * are said the panel's way; anything else passes unchanged.
 */
export function dqPanelMessage(text: string): string {
  if (/no branches configured/i.test(text)) {
    return 'No branches are configured: add a connection marked as a branch on the Connections page (or import a TOML file there), then check again.';
  }
  return text
    .replace(/`tributary connections import`/g, 'Import on the Connections page')
    .replace(/`tributary dq[^`]*`/g, 'Run check')
    .replace(/(^|[\s(])--(branch|tables|since|until|csv)\b/g, (_m, pre: string, f: string) => `${pre}${f}`)
    .replace(/\bparams\.(\w+)/g, '$1');
}

/** Every check matching the filter, oldest first per pair (what a trend line needs), and the failed `dq.run` runs. */
export async function dqHistory(pool: pg.Pool, f: DqHistoryFilter = {}): Promise<{ points: DqPoint[]; pairs: { table: string; branch: string }[]; failedRuns: DqFailedRun[] }> {
  const limit = Math.min(Math.max(f.limit ?? 2000, 1), 5000);
  const r = await pool.query(`
    SELECT x.*, coalesce((j.params->>'selfTest')::boolean, false) AS self_test FROM (
      SELECT id, pipeline_run_id, table_name, branch_id, status, checked_at, oracle_row_count, iceberg_row_count, row_count_delta,
             hash_only_in_oracle, hash_only_in_iceberg, hash_mismatch, repair IS NOT NULL AS repaired, error_details
        FROM etl_meta.etl_dq_results
       WHERE ($1::text IS NULL OR table_name = $1) AND ($2::text IS NULL OR branch_id = $2) AND ($3::text IS NULL OR status = $3)
         AND ($4::timestamptz IS NULL OR checked_at >= $4)
       ORDER BY id DESC LIMIT $5) x
      -- a job's results carry its run id (dq-<job run id>): its params tell a self-test
      LEFT JOIN job_runs j ON j.id::text = substr(x.pipeline_run_id, 4)
    ORDER BY table_name, branch_id, checked_at, x.id`, [f.table ?? null, f.branch ?? null, f.status ?? null, f.since ?? null, limit]);
  const points: DqPoint[] = r.rows.map((x) => {
    const parts = [num(x.hash_only_in_oracle), num(x.hash_only_in_iceberg), num(x.hash_mismatch)];
    return {
      id: Number(x.id), runId: x.pipeline_run_id, table: x.table_name, branch: x.branch_id, status: x.status, checkedAt: (x.checked_at as Date).toISOString(),
      sourceRows: num(x.oracle_row_count), lakeRows: num(x.iceberg_row_count), delta: num(x.row_count_delta),
      mismatches: parts.every((p) => p === null) ? null : parts.reduce<number>((a, p) => a + (p ?? 0), 0),
      hashMismatch: parts[2], onlyInSource: parts[0], onlyInLake: parts[1], repaired: !!x.repaired,
      error: x.error_details ? dqPanelMessage(x.error_details) : null, selfTest: !!x.self_test,
    };
  });
  const seen = new Set<string>();
  const pairs: { table: string; branch: string }[] = [];
  for (const p of points) if (!seen.has(`${p.table}|${p.branch}`)) { seen.add(`${p.table}|${p.branch}`); pairs.push({ table: p.table, branch: p.branch }); }
  // A failed run that wrote no rows is otherwise invisible here; its filters are in its params.
  const fr = await pool.query(`
    SELECT id, created_at, finished_at, created_by, params, error FROM job_runs
     WHERE kind = 'dq.run' AND status = 'failed' AND ($1::timestamptz IS NULL OR created_at >= $1)
       AND ($2::text IS NULL OR params->'tables' IS NULL OR params->'tables' = '[]'::jsonb OR params->'tables' ? $2)
       AND ($3::text IS NULL OR params->'branch' IS NULL OR params->'branch' = '[]'::jsonb OR params->'branch' ? $3)
     ORDER BY created_at DESC LIMIT 50`, [f.since ?? null, f.table ?? null, f.branch ?? null]);
  const failedRuns = f.status && f.status !== 'ERROR' ? [] : fr.rows.map((x) => ({
    id: x.id, createdAt: (x.created_at as Date).toISOString(), finishedAt: x.finished_at ? (x.finished_at as Date).toISOString() : null,
    createdBy: x.created_by ?? null, params: x.params, error: dqPanelMessage(String(x.error ?? 'failed without a message')),
  }));
  return { points, pairs, failedRuns };
}
