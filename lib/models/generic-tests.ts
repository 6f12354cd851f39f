import type { TestNode } from './types';

const lit = (v: unknown) => typeof v === 'number' || typeof v === 'boolean' ? String(v) : `'${String(v).replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/**
 * The SQL of a generic test, as dbt's built-in macros define it: a query
 * returning the failing rows (none = pass). `rel(name)` renders a model's
 * relation; a `where` config filters the tested model first.
 */
export function genericTestSql(t: TestNode, rel: (model: string) => string): string {
  const g = t.generic!;
  const model = rel(t.model!);
  const from = t.where ? `(SELECT * FROM ${model} WHERE ${t.where})` : model;
  const c = g.column;
  switch (g.type) {
    case 'not_null':
      return `SELECT *\nFROM ${from} AS t\nWHERE ${c} IS NULL`;
    case 'unique':
      return `SELECT ${c} AS unique_field, count() AS n_records\nFROM ${from} AS t\nWHERE ${c} IS NOT NULL\nGROUP BY ${c}\nHAVING count() > 1`;
    case 'accepted_values': {
      const values = (g.values ?? []).map((v) => (g.quote === false ? String(v) : lit(String(v)))).join(', ');
      return `SELECT ${c} AS value_field, count() AS n_records\nFROM ${from} AS t\nGROUP BY ${c}\nHAVING ${c} NOT IN (${values})`;
    }
    case 'relationships':
      return `SELECT ${c} AS from_field\nFROM ${from} AS t\nWHERE ${c} IS NOT NULL\n  AND ${c} NOT IN (SELECT ${g.field} FROM ${rel(g.to!)} WHERE ${g.field} IS NOT NULL)`;
  }
}
