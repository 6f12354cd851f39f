import type { SourceExecutor } from './source-executor';

/**
 * A source's own catalog, for choosing tables: its schemas, and per schema its
 * tables and views with columns, primary key and the columns that could serve
 * as a CDC watermark. Read from information_schema / pg_catalog on
 * PostgreSQL and the ALL_* views on Oracle (what the connecting user can see).
 */
export interface CatalogColumn { name: string; type: string; nullable: boolean }
export interface CatalogTable {
  /** `schema.table` as a tables.json entry names it. */
  table: string;
  kind: 'table' | 'view' | 'partitioned table';
  columns: CatalogColumn[];
  /** Primary-key columns in key order; empty when there is none (a view, or a table without one). */
  primaryKey: string[];
  /** Columns a watermark can use (a date, timestamp or number), likeliest first: names such as updated_at / AMEND_LAST_DATE lead. */
  watermarkCandidates: CatalogColumn[];
}

const TIME = /^(date|timestamp|time stamp)/i;
const NUMBER = /^(smallint|integer|bigint|int[248]?|numeric|decimal|number|real|double|float|binary_(float|double))/i;
const CHANGE_NAME = /(updat|modif|amend|chang|last|edit|upd_?d?t|mod_?d?t)/i;

/** Date, timestamp and number columns, those named like a change time first, then times before numbers. */
export function watermarkCandidates(columns: CatalogColumn[]): CatalogColumn[] {
  const score = (c: CatalogColumn) => (CHANGE_NAME.test(c.name) ? 0 : 2) + (TIME.test(c.type) ? 0 : 1);
  return columns.filter((c) => TIME.test(c.type) || NUMBER.test(c.type)).sort((a, b) => score(a) - score(b));
}

const PG_SCHEMAS = `SELECT nspname AS name FROM pg_namespace
WHERE nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast') AND nspname NOT LIKE 'pg\\_temp\\_%' AND nspname NOT LIKE 'pg\\_toast\\_temp\\_%'
  AND has_schema_privilege(oid, 'USAGE') ORDER BY 1`;
// Partitions are left out (their parent is the table a user loads); enums and domains show their own type name.
const PG_TABLES = `SELECT c.relname AS name, c.relkind AS kind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm') AND NOT c.relispartition ORDER BY 1`;
const PG_COLUMNS = `SELECT c.relname AS tbl, a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, NOT a.attnotnull AS nullable
FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = $1 AND a.attnum > 0 AND NOT a.attisdropped AND c.relkind IN ('r', 'p', 'v', 'm') ORDER BY c.relname, a.attnum`;
const PG_KEYS = `SELECT c.relname AS tbl, a.attname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
WHERE n.nspname = $1 AND i.indisprimary ORDER BY c.relname, array_position(i.indkey, a.attnum)`;

const ORA_SCHEMAS = `SELECT DISTINCT owner AS name FROM all_tables WHERE owner NOT IN ('SYS', 'SYSTEM', 'XDB', 'MDSYS', 'CTXSYS', 'OUTLN', 'DBSNMP', 'APPQOSSYS', 'WMSYS', 'ORDSYS', 'OLAPSYS', 'EXFSYS') ORDER BY 1`;
const ORA_TABLES = `SELECT table_name AS name, CASE WHEN partitioned = 'YES' THEN 'p' ELSE 'r' END AS kind FROM all_tables WHERE owner = :1 AND nested = 'NO'
UNION ALL SELECT view_name, 'v' FROM all_views WHERE owner = :2 ORDER BY 1`;
const ORA_COLUMNS = `SELECT table_name AS tbl, column_name AS name,
  data_type || CASE WHEN data_type = 'NUMBER' AND data_precision IS NOT NULL THEN '(' || data_precision || ',' || data_scale || ')'
                    WHEN data_type IN ('VARCHAR2', 'CHAR', 'NVARCHAR2') THEN '(' || char_length || ')' ELSE '' END AS type,
  CASE WHEN nullable = 'Y' THEN 1 ELSE 0 END AS nullable
FROM all_tab_columns WHERE owner = :1 ORDER BY table_name, column_id`;
const ORA_KEYS = `SELECT cc.table_name AS tbl, cc.column_name AS name FROM all_constraints c
JOIN all_cons_columns cc ON cc.owner = c.owner AND cc.constraint_name = c.constraint_name
WHERE c.owner = :1 AND c.constraint_type = 'P' ORDER BY cc.table_name, cc.position`;

/** The schemas (Oracle: owners) the connecting user can read. */
export async function listSchemas(src: SourceExecutor): Promise<string[]> {
  const rows = await src.query<{ name: string }>(src.engine === 'postgres' ? PG_SCHEMAS : ORA_SCHEMAS, [], { purpose: 'catalog' });
  return rows.map((r) => String(r.name));
}

/** Every table and view of one schema, with columns, primary key and watermark candidates. Four catalog queries in all. */
export async function listCatalogTables(src: SourceExecutor, schema: string): Promise<CatalogTable[]> {
  const pg = src.engine === 'postgres';
  const [tables, columns, keys] = await Promise.all([
    src.query<{ name: string; kind: string }>(pg ? PG_TABLES : ORA_TABLES, pg ? [schema] : [schema, schema], { purpose: 'catalog' }),
    src.query<{ tbl: string; name: string; type: string; nullable: boolean | number }>(pg ? PG_COLUMNS : ORA_COLUMNS, [schema], { purpose: 'catalog' }),
    src.query<{ tbl: string; name: string }>(pg ? PG_KEYS : ORA_KEYS, [schema], { purpose: 'catalog' }),
  ]);
  const colsOf = new Map<string, CatalogColumn[]>();
  for (const c of columns) (colsOf.get(c.tbl) ?? colsOf.set(c.tbl, []).get(c.tbl)!).push({ name: c.name, type: c.type, nullable: c.nullable === true || c.nullable === 1 });
  const keyOf = new Map<string, string[]>();
  for (const k of keys) (keyOf.get(k.tbl) ?? keyOf.set(k.tbl, []).get(k.tbl)!).push(k.name);
  const KIND: Record<string, CatalogTable['kind']> = { r: 'table', p: 'partitioned table', v: 'view', m: 'view' };
  return tables.map((t) => {
    const cols = colsOf.get(t.name) ?? [];
    return { table: `${schema}.${t.name}`, kind: KIND[t.kind] ?? 'table', columns: cols, primaryKey: keyOf.get(t.name) ?? [], watermarkCandidates: watermarkCandidates(cols) };
  });
}
