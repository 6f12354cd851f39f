/**
 * The SQL catalog: rows in `iceberg_tables` / `iceberg_namespace_properties`,
 * laid out as pyiceberg's SqlCatalog and Iceberg's JdbcCatalog expect, so
 * those tools can open the same lake. One function per statement; the
 * compare-and-swap of `metadata_location` is the commit point of every write.
 */
import type pg from 'pg';
import { AppError } from '../errors';

export interface TableRow { namespace: string; name: string; metadataLocation: string; previousMetadataLocation: string | null }

/** `ns.table` → parts; the namespace is everything before the last dot. */
export function parseIdent(ident: string, defaultNamespace?: string): { namespace: string; name: string } {
  const i = ident.lastIndexOf('.');
  if (i < 0) {
    if (!defaultNamespace) throw new AppError('validation', `lake: table name ${ident} must be namespace.table`);
    return { namespace: defaultNamespace, name: ident };
  }
  const namespace = ident.slice(0, i), name = ident.slice(i + 1);
  if (!namespace || !name) throw new AppError('validation', `lake: bad table name ${ident}`);
  return { namespace, name };
}

export async function namespaceExists(pool: pg.Pool, catalog: string, ns: string): Promise<boolean> {
  const r = await pool.query(
    `select 1 from iceberg_namespace_properties where catalog_name = $1 and namespace = $2
     union all select 1 from iceberg_tables where catalog_name = $1 and table_namespace = $2 limit 1`, [catalog, ns]);
  return (r.rowCount ?? 0) > 0;
}

export async function insertNamespace(pool: pg.Pool, catalog: string, ns: string, props: Record<string, string>): Promise<void> {
  // pyiceberg marks a namespace with the property `exists` = `true`.
  const all = { exists: 'true', ...props };
  for (const [k, v] of Object.entries(all)) {
    await pool.query(
      `insert into iceberg_namespace_properties (catalog_name, namespace, property_key, property_value) values ($1, $2, $3, $4)
       on conflict (catalog_name, namespace, property_key) do update set property_value = excluded.property_value`, [catalog, ns, k, v]);
  }
}

export async function selectNamespaces(pool: pg.Pool, catalog: string): Promise<string[]> {
  const r = await pool.query<{ ns: string }>(
    `select namespace as ns from iceberg_namespace_properties where catalog_name = $1
     union select table_namespace from iceberg_tables where catalog_name = $1 order by 1`, [catalog]);
  return r.rows.map((x) => x.ns);
}

export async function selectNamespaceProperties(pool: pg.Pool, catalog: string, ns: string): Promise<Record<string, string>> {
  const r = await pool.query<{ k: string; v: string | null }>(
    `select property_key as k, property_value as v from iceberg_namespace_properties where catalog_name = $1 and namespace = $2`, [catalog, ns]);
  return Object.fromEntries(r.rows.map((x) => [x.k, x.v ?? '']));
}

export async function deleteNamespaceProperties(pool: pg.Pool, catalog: string, ns: string, keys?: string[]): Promise<void> {
  if (keys) await pool.query(`delete from iceberg_namespace_properties where catalog_name = $1 and namespace = $2 and property_key = any($3)`, [catalog, ns, keys]);
  else await pool.query(`delete from iceberg_namespace_properties where catalog_name = $1 and namespace = $2`, [catalog, ns]);
}

export async function selectTables(pool: pg.Pool, catalog: string, ns?: string): Promise<{ namespace: string; name: string }[]> {
  const r = ns === undefined
    ? await pool.query<{ namespace: string; name: string }>(`select table_namespace as namespace, table_name as name from iceberg_tables where catalog_name = $1 and coalesce(iceberg_type, 'TABLE') = 'TABLE' order by 1, 2`, [catalog])
    : await pool.query<{ namespace: string; name: string }>(`select table_namespace as namespace, table_name as name from iceberg_tables where catalog_name = $1 and table_namespace = $2 and coalesce(iceberg_type, 'TABLE') = 'TABLE' order by 2`, [catalog, ns]);
  return r.rows;
}

export async function selectTable(pool: pg.Pool, catalog: string, ns: string, name: string): Promise<TableRow | null> {
  const r = await pool.query<{ m: string; p: string | null }>(
    `select metadata_location as m, previous_metadata_location as p from iceberg_tables where catalog_name = $1 and table_namespace = $2 and table_name = $3`,
    [catalog, ns, name]);
  if (!r.rows[0]) return null;
  return { namespace: ns, name, metadataLocation: r.rows[0].m, previousMetadataLocation: r.rows[0].p };
}

export async function insertTable(pool: pg.Pool, catalog: string, ns: string, name: string, metadataLocation: string): Promise<boolean> {
  const r = await pool.query(
    `insert into iceberg_tables (catalog_name, table_namespace, table_name, metadata_location, previous_metadata_location, iceberg_type)
     values ($1, $2, $3, $4, null, 'TABLE') on conflict do nothing`, [catalog, ns, name, metadataLocation]);
  return (r.rowCount ?? 0) === 1;
}

/** The commit point: succeeds only if nobody moved the table since `expected`. */
export async function swapMetadataLocation(pool: pg.Pool, catalog: string, ns: string, name: string, expected: string, next: string): Promise<boolean> {
  const r = await pool.query(
    `update iceberg_tables set metadata_location = $5, previous_metadata_location = $4
     where catalog_name = $1 and table_namespace = $2 and table_name = $3 and metadata_location = $4`,
    [catalog, ns, name, expected, next]);
  return (r.rowCount ?? 0) === 1;
}

export async function deleteTable(pool: pg.Pool, catalog: string, ns: string, name: string): Promise<boolean> {
  const r = await pool.query(`delete from iceberg_tables where catalog_name = $1 and table_namespace = $2 and table_name = $3`, [catalog, ns, name]);
  return (r.rowCount ?? 0) === 1;
}

export async function renameTableRow(pool: pg.Pool, catalog: string, from: { namespace: string; name: string }, to: { namespace: string; name: string }): Promise<void> {
  try {
    const r = await pool.query(
      `update iceberg_tables set table_namespace = $4, table_name = $5 where catalog_name = $1 and table_namespace = $2 and table_name = $3`,
      [catalog, from.namespace, from.name, to.namespace, to.name]);
    if ((r.rowCount ?? 0) !== 1) throw new AppError('not_found', `lake: table ${from.namespace}.${from.name} does not exist`);
  } catch (e) {
    if ((e as { code?: string }).code === '23505') throw new AppError('conflict', `lake: table ${to.namespace}.${to.name} already exists`);
    throw e;
  }
}
