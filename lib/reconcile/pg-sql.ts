import type { CanonKind } from './canonical';
import { KEY_MIX, type HashQuery, type KeyHashKind, type PrefixFilter, type SqlColumn, type SqlRelation } from './sql-common';

/**
 * Postgres SQL for the reconciler's source side: canonical text per column
 * (the same bytes `canonical.ts` renders), MD5 row and key hashes, bucket
 * digests grouped by key-hash prefix — computed in the database, so only a few
 * hundred digest rows cross the wire on a clean table. Pure string builders.
 */

/** Quote an identifier for Postgres (names keep their case). */
export function pgIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** The canonical kind of a Postgres type as `format_type()` spells it. */
export function pgKind(type: string): CanonKind {
  const t = type.toLowerCase();
  if (/^(smallint|integer|bigint|int[248]?|oid)$/.test(t)) return 'integer';
  if (/^(numeric|decimal)/.test(t)) return 'decimal';
  if (/^(real|double precision|float[48]?)$/.test(t)) return 'float';
  if (t === 'boolean' || t === 'bool') return 'boolean';
  if (t === 'date') return 'date';
  if (t.startsWith('timestamp')) return 'timestamp';
  if (t === 'bytea') return 'binary';
  return 'text';
}

/** Canonical text expression of one column (NULL stays NULL). */
export function pgCanonicalExpr(ref: string, col: Pick<SqlColumn, 'sourceType' | 'asFloat'>): string {
  const t = col.sourceType.toLowerCase();
  // an array (a lake list): jsonb text of its elements, flattened as the loader flattens them (arrow-canonical.ts renders the lake's the same way)
  if (t.endsWith('[]')) return `CASE WHEN ${ref} IS NULL THEN NULL ELSE to_jsonb(ARRAY(SELECT unnest(${ref})))::text END`;
  const kind = pgKind(t);
  if (col.asFloat && (kind === 'integer' || kind === 'decimal' || kind === 'float')) {
    // float8::numeric keeps 15 significant digits (%.15g), the Node side's rule
    return `trim_scale(${ref}::float8::numeric)::text`;
  }
  switch (kind) {
    case 'integer': return `${ref}::text`;
    // NaN and ±Infinity, which no decimal holds, are loaded as NULL (pg-copy-decoder.ts): compared so
    case 'decimal': return `nullif(nullif(nullif(trim_scale(${ref})::text, 'NaN'), 'Infinity'), '-Infinity')`;
    case 'float': return `trim_scale(${ref}::float8::numeric)::text`;
    case 'boolean': return `${ref}::text`;
    // timestamp::text is ISO `YYYY-MM-DD HH:MM:SS[.ffffff]` under DateStyle ISO (the default; the
    // reconciler's sessions set it), the fraction without trailing zeros — the canonical form at the
    // column's own (microsecond) precision — and twice as fast as to_char
    case 'date': return `${ref}::timestamp::text`;
    case 'timestamp':
      return t.includes('with time zone') || t === 'timestamptz'
        ? `(${ref} AT TIME ZONE 'UTC')::text`
        : `${ref}::timestamp::text`;
    case 'binary': return `encode(${ref}, 'hex')`;
    default:
      // char(n): text casts drop the padding the driver (and so the lake) keeps; format() keeps it
      if (/^(character\(|char\(|bpchar|character$)/.test(t)) return `CASE WHEN ${ref} IS NULL THEN NULL ELSE format('%s', ${ref}) END`;
      // inet as the loader projects it (its output form: no /32 on a host address)
      if (t === 'inet') return `abbrev(${ref})`;
      return t === 'text' || t.startsWith('character varying') || t.startsWith('varchar') ? ref : `${ref}::text`;
  }
}

/** The canonical row text of columns: `coalesce(c, NULL_MARK) || FIELD_SEP` each (row-hash.ts); `||` is faster than concat(). */
export function pgRowText(cols: SqlColumn[], alias = 't'): string {
  return cols.map((c) => `coalesce(${pgCanonicalExpr(`${alias}.${pgIdent(c.name)}`, c)}, E'\\x1e') || E'\\x1f'`).join(' || ');
}

/** First 8 bytes of MD5 as a signed bigint. */
export function pgHash64(textExpr: string): string {
  return `('x' || left(md5(${textExpr}), 16))::bit(64)::bigint`;
}

/** Prefix (top `bits` bits, unsigned) of a key hash: a signed bigint (md5) or an unsigned 32-bit value (int32). */
export function pgPrefix(kh: string, bits: number, kind: KeyHashKind = 'md5'): string {
  if (kind === 'int32') return bits >= 32 ? kh : `(${kh} >> ${32 - bits})`;
  const mask = bits >= 63 ? '9223372036854775807' : String(2 ** bits - 1);
  return `((${kh} >> ${64 - bits}) & ${mask})`;
}

/** The key hash expression of a query. */
export function pgKeyHash(q: HashQuery, alias = 't'): string {
  if (q.keyHash === 'int32') return `(((${alias}.${pgIdent(q.keys[0].name)}::bigint & 4294967295) * ${KEY_MIX}) & 4294967295)`;
  return pgHash64(pgRowText(q.keys, alias));
}

function whereClause(rel: SqlRelation, extra?: string): string {
  const preds = [rel.where, extra].filter((p) => p && p.trim() !== '');
  return preds.length ? ` WHERE ${preds.map((p) => `(${p})`).join(' AND ')}` : '';
}

function inner(q: HashQuery, withValues: boolean): string {
  const kh = pgKeyHash(q);
  const rh = pgHash64(pgRowText(q.columns));
  const vals = withValues ? q.columns.map((c, i) => `, ${pgCanonicalExpr(`t.${pgIdent(c.name)}`, c)} AS v${i}`).join('') : '';
  const keys = withValues ? q.keys.map((c, i) => `, ${pgCanonicalExpr(`t.${pgIdent(c.name)}`, c)} AS k${i}`).join('') : '';
  return `SELECT ${kh} AS kh, ${rh} AS rh${keys}${vals} FROM ${q.rel.from}${whereClause(q.rel)}`;
}

function prefixPredicate(within: PrefixFilter | undefined, kind: KeyHashKind = 'md5'): string {
  if (!within || within.prefixes.length === 0) return '';
  return `${pgPrefix('x.kh', within.bits, kind)} IN (${within.prefixes.join(', ')})`;
}

/** Windowed row count. */
export function pgCountSql(rel: SqlRelation): string {
  return `SELECT count(*)::bigint AS n FROM ${rel.from}${whereClause(rel)}`;
}

/**
 * Bucket digests at depth `bits`: one row (b, n, s) per non-empty bucket, where s
 * is the exact sum of the rows' hashes (sum(bigint) accumulates in 128 bits).
 */
export function pgDigestSql(q: HashQuery, bits: number, within?: PrefixFilter): string {
  const w = prefixPredicate(within, q.keyHash);
  const agg = q.digest === 'xor' ? 'bit_xor(x.rh)' : 'sum(x.rh)';
  return `SELECT ${pgPrefix('x.kh', bits, q.keyHash)} AS b, count(*)::bigint AS n, ${agg}::text AS s FROM (${inner(q, false)}) x`
    + (w ? ` WHERE ${w}` : '') + ` GROUP BY 1`;
}

/** The rows of some buckets: key values, row hash and canonical column values (k0…, v0…). */
export function pgRowsSql(q: HashQuery, within: PrefixFilter): string {
  const w = prefixPredicate(within, q.keyHash);
  return `SELECT x.rh::text AS rh, ${q.keys.map((_, i) => `x.k${i}`).concat(q.columns.map((_, i) => `x.v${i}`)).join(', ')} FROM (${inner(q, true)}) x`
    + (w ? ` WHERE ${w}` : '');
}

/** The rows for given keys (re-check after repair): same output as pgRowsSql. */
export function pgRowsForKeysSql(q: HashQuery, keyValues: (string | null)[][]): { text: string; values: (string | null)[] } {
  const values: (string | null)[] = [];
  const tuples = keyValues.map((kv) => `(${kv.map((v) => { values.push(v); return `$${values.length}::text`; }).join(', ')})`);
  const keyTuple = `(${q.keys.map((c) => pgCanonicalExpr(`t.${pgIdent(c.name)}`, c)).join(', ')})`;
  const extra = tuples.length ? `${keyTuple} IN (${tuples.join(', ')})` : 'false';
  const rel = { ...q.rel, where: [q.rel.where, extra].filter(Boolean).map((p) => `(${p})`).join(' AND ') };
  return { text: `SELECT x.rh::text AS rh, ${q.keys.map((_, i) => `x.k${i}`).concat(q.columns.map((_, i) => `x.v${i}`)).join(', ')} FROM (${inner({ ...q, rel }, true)}) x`, values };
}
