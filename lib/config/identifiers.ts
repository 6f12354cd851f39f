/**
 * Identifiers Tributary will put into SQL text. Anything outside
 * `[A-Za-z0-9_$#]` is refused, so identifiers are never quoted and fold the
 * same way in each dialect (Oracle upper-cases, Postgres lower-cases).
 * tables.json is validated with these; the source dialects render them.
 */
export const IDENT_RE = /^[A-Za-z0-9_$#]+$/;

export function isIdentifier(s: string): boolean {
  return IDENT_RE.test(s);
}

/** `OWNER.TABLE` or `TABLE`, each part an identifier. */
export function isQualifiedName(s: string): boolean {
  const parts = s.split('.');
  return parts.length >= 1 && parts.length <= 2 && parts.every(isIdentifier);
}

/** Lower snake case: `OASIS.APPOINTMENTS` → `appointments`, `VisitsEnriched` → `visits_enriched`. */
export function snakeCase(s: string): string {
  return s
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toLowerCase();
}
