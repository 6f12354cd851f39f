/**
 * What to read for one table, as tables.json describes it: the table or
 * inline view, its CDC and date columns, the INITIAL range and the helper
 * table a child is filtered through. The source dialects render it to SQL.
 */
export interface QuerySpec {
  source: { kind: 'table'; name: string } | { kind: 'subquery'; sql: string };
  cdcColumn?: string | null;
  dateColumn?: string | null;
  /** INITIAL range on the date column (the helper's when helper-driven). */
  initial?: { operator: string; value: string | number } | null;
  helper?: { table: string; join: [string, string][]; cdcColumn: string; dateColumn?: string | null } | null;
}
