import type { TableDef } from '../config/tables-json';
import { HELPER_CDC, HELPER_DATE, type SourceColumn } from '../sources';

/**
 * Refusals decided when a run is planned, before anything is read or any
 * lake table is created: each names the tables.json entry and the field.
 */

const WATERMARK_KINDS = new Set(['int', 'long', 'float', 'double', 'decimal', 'date', 'timestamp', 'timestamptz']);

/**
 * A watermark is compared with `>` at the source and kept as the greatest
 * value loaded, so it must order as the data changes: a date, timestamp or
 * number. Text orders as text ('9' > '10', names by alphabet) and would skip
 * or repeat rows without a word. Returns why the entry's watermark columns
 * (its own cdc_column / where_date_column, or its helper's) are refused on
 * this branch, or null. `columns` are the unit's described columns.
 */
export function watermarkTypeProblem(def: TableDef, columns: SourceColumn[]): string | null {
  const h = def.spec.helper;
  const checks: { field: string; configured: string; column: string }[] = [];
  if (h) {
    checks.push({ field: 'helper.cdc_column', configured: h.cdcColumn, column: HELPER_CDC });
    if (h.dateColumn) checks.push({ field: 'helper.where_date_column', configured: h.dateColumn, column: HELPER_DATE });
  } else {
    if (def.spec.cdcColumn) checks.push({ field: 'cdc_column', configured: def.spec.cdcColumn, column: def.spec.cdcColumn });
    if (def.spec.dateColumn) checks.push({ field: 'where_date_column', configured: def.spec.dateColumn, column: def.spec.dateColumn });
  }
  for (const c of checks) {
    const col = columns.find((x) => x.name.toUpperCase() === c.column.toUpperCase());
    if (!col) return `etl: tables.json entry '${def.lakeName}': ${c.field} ${c.configured} is not a column of the source`;
    if (!WATERMARK_KINDS.has(col.type.kind)) {
      return `etl: tables.json entry '${def.lakeName}': watermark column ${c.configured}${c.field === 'cdc_column' ? '' : ` (${c.field})`} is ${col.sourceType || col.type.kind}; a watermark must be a date, timestamp or number`;
    }
  }
  return null;
}

/** Every unique_key column must be one the source projects (names compared without regard to case), or null. */
export function keyColumnProblem(def: TableDef, columns: SourceColumn[]): string | null {
  // named as tables.json writes them, beside the source's columns as the source spells them
  const written = [def.entry?.unique_key ?? []].flat() as string[];
  const missing = def.uniqueKey.filter((k) => !columns.some((c) => c.name.toUpperCase() === k.toUpperCase()))
    .map((k) => written.find((w) => w.toUpperCase() === k.toUpperCase()) ?? k);
  if (!missing.length) return null;
  return `etl: tables.json entry '${def.lakeName}': unique_key column${missing.length > 1 ? 's' : ''} ${missing.join(', ')} ${missing.length > 1 ? 'are not columns' : 'is not a column'} of the source (it has ${columns.map((c) => c.sourceName ?? c.name).join(', ')})`;
}

/** What refuses a described unit at planning: its key columns, then its watermark columns. */
export function describedUnitProblem(def: TableDef, columns: SourceColumn[]): string | null {
  return keyColumnProblem(def, columns) ?? watermarkTypeProblem(def, columns);
}
