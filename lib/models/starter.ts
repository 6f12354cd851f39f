import fs from 'node:fs';
import path from 'node:path';

/**
 * The project written on first use, so `models build` and the Models page
 * have something to show: a staging view over a lake table and a schema.yml
 * with tests. `lakeTable` is an existing lake table when there is one.
 */
export function starterFiles(lakeTable?: { ident: string; columns: string[] }): Record<string, string> {
  const ident = lakeTable?.ident ?? 'demo.orders';
  const name = `stg_${ident.split('.').pop()!.toLowerCase().replace(/[^a-z0-9_]/g, '_')}`;
  const cols = lakeTable?.columns ?? [];
  const first = cols[0];
  return {
    'dbt_project.yml': `name: tributary\n# Variables templates read with var('name', default); --vars '{"name": …}' overrides them.\nvars:\n  limit_rows: 1000000\n`,
    [`models/staging/${name}.sql`]: `{{ config(materialized='view') }}\n\n-- A staging view over the lake table ${ident}.\nSELECT *\nFROM {{ source('lake', '${ident}') }}\nLIMIT {{ var('limit_rows', 1000000) }}\n`,
    'models/staging/schema.yml': `version: 2\n\nmodels:\n  - name: ${name}\n    description: Staging view over ${ident}\n${first ? `    columns:\n      - name: ${first}\n        tests:\n          - not_null\n` : '    columns: []\n'}`,
    'macros/README.sql': `{# Macros defined here are available in every model, e.g.:\n{% macro cents(col) %}round({{ col }} * 100){% endmacro %} #}\n`,
  };
}

/** Write the starter project when `root` does not exist yet; true when written. */
export function ensureStarterProject(root: string, lakeTable?: { ident: string; columns: string[] }): boolean {
  if (fs.existsSync(root)) return false;
  for (const [rel, text] of Object.entries(starterFiles(lakeTable))) {
    const p = path.join(root, rel);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, text);
  }
  return true;
}
