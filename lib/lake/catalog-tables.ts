import type pg from 'pg';
import { identString, type TableIdent } from './catalog';
import { normaliseWarehouse } from './warehouse-uri';

export { parseIdent } from './catalog';

/**
 * A row of `iceberg_tables` that is a table: JdbcCatalog (schema v1) keeps views in the same table with
 * `iceberg_type = 'VIEW'`; rows written before that column (and pyiceberg's, which leave it NULL) are tables.
 * Every lookup of a table by name filters on it (sql-catalog.ts), so no lake command reads, commits to,
 * drops or renames a view.
 */
export const IS_TABLE = `coalesce(iceberg_type, 'TABLE') = 'TABLE'`;

/**
 * The catalog's tables, as `iceberg_tables` holds them (views left out),
 * ordered by namespace and name. What `Lake.listTables` answers, in a module
 * that loads no more than `pg`'s types: `tributary lake list` and other
 * read commands list the lake without loading the engine (Arrow, Parquet,
 * Avro, the S3 SDK — most of a CLI command's start).
 */
export async function catalogTables(pool: pg.Pool, catalog: string, ns?: string): Promise<TableIdent[]> {
  const r = ns === undefined
    ? await pool.query<TableIdent>(`select table_namespace as namespace, table_name as name from iceberg_tables where catalog_name = $1 and ${IS_TABLE} order by 1, 2`, [catalog])
    : await pool.query<TableIdent>(`select table_namespace as namespace, table_name as name from iceberg_tables where catalog_name = $1 and table_namespace = $2 and ${IS_TABLE} order by 2`, [catalog, ns]);
  return r.rows;
}

/**
 * `Lake.listTables()` of `openLake({ pool, warehouse, catalogName })` without opening the lake:
 * the warehouse is checked as openLake checks it, then the catalog is read.
 */
export async function listLakeTables(o: { pool: pg.Pool; warehouse: string; catalogName?: string }): Promise<string[]> {
  normaliseWarehouse(o.warehouse);
  return (await catalogTables(o.pool, o.catalogName ?? 'tributary')).map(identString);
}
