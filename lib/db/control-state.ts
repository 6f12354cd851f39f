import type pg from 'pg';

/**
 * The authoritative watermarks in `etl_meta.control_state` (seed 000 §6):
 * the loader advances them after each lake commit, the reconciler bounds its
 * window by them.
 */
export interface Watermark { cdc: string | null; date: string | null }

/** A lake table: control state is kept per namespace + name, so a load into another namespace never moves this one's watermarks. */
export interface LakeTableRef { namespace: string; table: string }

/** The committed watermark of the lake table on each of `branches` that has one. */
export async function getWatermarks(pool: pg.Pool, t: LakeTableRef, branches: string[]): Promise<Map<string, Watermark>> {
  const r = await pool.query('SELECT branch_id, last_cdc_value, last_date_value FROM etl_meta.control_state WHERE namespace = $1 AND table_name = $2 AND branch_id = ANY($3)',
    [t.namespace, t.table, branches]);
  return new Map(r.rows.map((x) => [x.branch_id as string, { cdc: x.last_cdc_value, date: x.last_date_value }]));
}

/**
 * The committed watermarks of several lake tables of one namespace in one query:
 * table name → branch → watermark (a run's planning reads all its tables at once).
 */
export async function getWatermarksOfTables(pool: pg.Pool, namespace: string, tables: string[], branches: string[]): Promise<Map<string, Map<string, Watermark>>> {
  const out = new Map<string, Map<string, Watermark>>(tables.map((t) => [t, new Map()]));
  if (!tables.length || !branches.length) return out;
  const r = await pool.query('SELECT table_name, branch_id, last_cdc_value, last_date_value FROM etl_meta.control_state WHERE namespace = $1 AND table_name = ANY($2) AND branch_id = ANY($3)',
    [namespace, tables, branches]);
  for (const x of r.rows) out.get(x.table_name as string)?.set(x.branch_id as string, { cdc: x.last_cdc_value, date: x.last_date_value });
  return out;
}
