import type pg from 'pg';

/**
 * The authoritative watermarks in `etl_meta.control_state` (seed 000 §6):
 * the loader advances them after each lake commit, the reconciler bounds its
 * window by them.
 */
export interface Watermark { cdc: string | null; date: string | null }

/** The committed watermark of `table` on each of `branches` that has one. */
export async function getWatermarks(pool: pg.Pool, table: string, branches: string[]): Promise<Map<string, Watermark>> {
  const r = await pool.query('SELECT branch_id, last_cdc_value, last_date_value FROM etl_meta.control_state WHERE table_name = $1 AND branch_id = ANY($2)', [table, branches]);
  return new Map(r.rows.map((x) => [x.branch_id as string, { cdc: x.last_cdc_value, date: x.last_date_value }]));
}
