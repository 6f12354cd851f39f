import type * as arrow from 'apache-arrow';
import { applyNaming } from '../config/naming';
import type { TableDef } from '../config/tables-json';
import { fromArrowType } from './arrow-types';
import type { SourceColumn, TargetField } from './types';

/**
 * Source column names ↔ lake column names. Inside the loader a source column
 * keeps its canonical name (`SourceColumn.name`, which keys, CDC columns and
 * watermarks use); the lake names it by the table's `naming` convention
 * (lib/config/naming.ts), and a lake column that matches without regard to
 * case keeps its own spelling (an upper-case lake goes on loading).
 */

/** The column of `names` equal to `want` without regard to case. */
export function matchName(names: Iterable<string>, want: string): string | undefined {
  const w = want.toLowerCase();
  for (const n of names) if (n.toLowerCase() === w) return n;
  return undefined;
}

/** The lake name of a described source column (before any lake spelling is known). */
export function namedColumn(def: Pick<TableDef, 'naming'>, c: Pick<SourceColumn, 'name' | 'sourceName'>): string {
  return applyNaming(c.sourceName ?? c.name, def.naming);
}

/** The lake name of a described source column in a table whose schema is `lake`. */
export function lakeNameOf(def: Pick<TableDef, 'naming'>, c: Pick<SourceColumn, 'name' | 'sourceName'>, lake: string[]): string {
  const want = namedColumn(def, c);
  return matchName(lake, want) ?? want;
}

/** The lake names of the table's `unique_key` columns (tables.json spells keys in any case). */
export function lakeKeys(def: Pick<TableDef, 'naming' | 'uniqueKey'>, lake: string[]): string[] {
  return def.uniqueKey.map((k) => matchName(lake, applyNaming(k, def.naming)) ?? matchName(lake, k) ?? k);
}

/** The read target's fields for a unit: each lake field with the source column that fills it. */
export function targetFields(def: Pick<TableDef, 'naming'>, schema: arrow.Schema, columns: SourceColumn[]): TargetField[] {
  const lake = schema.fields.map((f) => f.name);
  const bySource = new Map(columns.map((c) => [lakeNameOf(def, c, lake), c.name]));
  return schema.fields.map((f) => {
    const source = bySource.get(f.name);
    return source && source !== f.name ? { name: f.name, type: fromArrowType(f.type), source } : { name: f.name, type: fromArrowType(f.type) };
  });
}
