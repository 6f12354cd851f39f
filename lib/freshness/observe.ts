import type pg from 'pg';
import type { AssetExpectation, FreshnessObservations } from './status';

/** Last successful load per lake table × branch (etl_meta.etl_control) and last successful model build (model_results), for the expected assets. */
export async function observeFreshness(pool: Pick<pg.Pool, 'query'>, expected: AssetExpectation[]): Promise<FreshnessObservations> {
  const tables = expected.filter((e) => e.kind === 'lake_table').map((e) => e.name.toLowerCase());
  const models = expected.filter((e) => e.kind === 'model').map((e) => e.name);
  const lake = tables.length
    ? await pool.query(`select lower(namespace || '.' || table_name) as t, branch_id, last_success_at from etl_meta.etl_control where lower(namespace || '.' || table_name) = any($1::text[])`, [tables])
    : { rows: [] };
  // `run` and `build` both materialise a model; `success` is a model's only good outcome (pass/warn are tests')
  const built = models.length
    ? await pool.query(`select node, max(created_at) as at from model_results where kind = 'model' and status = 'success' and node = any($1::text[]) group by node`, [models])
    : { rows: [] };
  return {
    lakeLoads: lake.rows.map((r) => ({ table: String(r.t), branch: String(r.branch_id), lastSuccessAt: r.last_success_at ?? null })),
    modelBuilds: built.rows.map((r) => ({ model: String(r.node), lastSuccessAt: r.at })),
  };
}
