import type { SourceQuery } from './open-source';

const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;

/**
 * The SQL listing a table's primary-key columns in key order, per dialect.
 * `table` is `schema.table` or `table` as written in a query; unquoted names
 * fold as each database folds them (PostgreSQL to lower case through
 * to_regclass, Oracle to upper case), quoted ones are kept.
 */
export function primaryKeySql(engine: 'postgres' | 'oracle', table: string): string {
  if (engine === 'postgres') {
    return `SELECT a.attname AS "C" FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
WHERE i.indisprimary AND i.indrelid = to_regclass(${lit(table)}) ORDER BY array_position(i.indkey, a.attnum)`;
  }
  const parts = table.split('.').map((p) => (/^".*"$/.test(p) ? p.slice(1, -1) : p.toUpperCase()));
  const [owner, name] = parts.length > 1 ? parts : [null, parts[0]];
  return `SELECT cc.column_name AS "C" FROM all_constraints c JOIN all_cons_columns cc ON cc.owner = c.owner AND cc.constraint_name = c.constraint_name
WHERE c.constraint_type = 'P' AND c.table_name = ${lit(name)} AND c.owner = ${owner ? lit(owner) : 'SYS_CONTEXT(\'USERENV\', \'CURRENT_SCHEMA\')'} ORDER BY cc.position`;
}

/** A table's primary-key columns, in key order; empty when it has none (or is not found). */
export async function primaryKeyOf(src: Pick<SourceQuery, 'engine' | 'query'>, table: string): Promise<string[]> {
  return (await src.query(primaryKeySql(src.engine, table))).map((r) => String(r.C));
}
