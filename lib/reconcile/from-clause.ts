import type { TableDef } from '../config/tables-json';

/** The FROM clause of a table definition: the table or subquery as `t`, the helper joined as `h` (as the ETL reads it). */
export function fromClause(def: TableDef): string {
  const s = def.spec;
  const base = s.source.kind === 'table' ? `${s.source.name} t` : `${s.source.sql.trim()} t`;
  if (!s.helper) return base;
  return `${base} INNER JOIN ${s.helper.table} h ON ${s.helper.join.map(([c, h]) => `t.${c} = h.${h}`).join(' AND ')}`;
}
