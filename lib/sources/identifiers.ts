/**
 * The canonical column name: plain identifiers are case-insensitive in both
 * dialects, so they are upper-cased (Oracle's spelling); anything else
 * (a quoted mixed-case Postgres column) is kept verbatim. The identifier
 * rules themselves live in lib/config/identifiers.ts (tables.json checks them).
 */
export function canonicalColumn(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_$#]*$/.test(name) ? name.toUpperCase() : name;
}
