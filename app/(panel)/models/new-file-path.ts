/**
 * A new file's project path from what was typed: `marts/x.sql`, `x` and
 * `models/marts/x.sql` all land under models/ (as the placeholder shows);
 * tests/, macros/, seeds/ and dbt_project.yml are kept as typed.
 */
export function newFilePath(typed: string): string {
  const t = typed.trim().replace(/^\/+/, '');
  const rel = /^(models|tests|macros|seeds)\//.test(t) || t === 'dbt_project.yml' ? t : `models/${t}`;
  return /\.(sql|ya?ml|csv|md)$/.test(rel) ? rel : `${rel}.sql`;
}
