import type { CanonKind } from './canonical';
import { KEY_MIX, type HashQuery, type KeyHashKind, type PrefixFilter, type SqlColumn, type SqlRelation } from './sql-common';

/**
 * Oracle (11g and later) SQL for the reconciler's source side: the same
 * canonical bytes as `canonical.ts` / `pg-sql.ts`, hashed in the database.
 *
 * Not executed in this repository (no Oracle server here): tested as rendered
 * text only. Oracle specifics it relies on:
 * - MD5 through `DBMS_OBFUSCATION_TOOLKIT.MD5(input => RAW)` (11g has no
 *   STANDARD_HASH; DBMS_CRYPTO needs an extra grant), over the UTF-8 bytes
 *   (`UTL_I18N.STRING_TO_RAW(…, 'AL32UTF8')`) whatever the database charset.
 * - the row text is a VARCHAR2 expression, limited to 4000 bytes in SQL
 *   (ORA-01489 beyond): wider rows must be hashed in the decode loop instead.
 * - Oracle stores '' as NULL, so an empty string and NULL are one value there.
 * - 64-bit arithmetic in NUMBER (38 digits): sums are exact.
 */

/** Quote an identifier for Oracle. */
export function oraIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** The canonical kind of an Oracle type as the dictionary spells it. */
export function oracleKind(type: string): CanonKind {
  const t = type.toUpperCase();
  if (/^NUMBER\(\d+(,0)?\)$|^INTEGER$|^SMALLINT$/.test(t)) return 'integer';
  if (t.startsWith('NUMBER') || t.startsWith('DECIMAL')) return 'decimal';
  if (/^(BINARY_DOUBLE|BINARY_FLOAT|FLOAT)/.test(t)) return 'float';
  if (t === 'DATE' || t.startsWith('TIMESTAMP')) return 'timestamp';
  if (/^(RAW|LONG RAW|BLOB)/.test(t)) return 'binary';
  return 'text';
}

const TS = `'YYYY-MM-DD HH24:MI:SS'`;

/** Plain-notation number text with a leading zero (TO_CHAR 'TM9' writes .5). */
function numText(expr: string): string {
  return `REGEXP_REPLACE(TO_CHAR(${expr}, 'TM9'), '^(-?)\\.', '\\10.')`;
}

/** Canonical text expression of one column (NULL stays NULL). */
export function oraCanonicalExpr(ref: string, col: Pick<SqlColumn, 'sourceType' | 'asFloat'>): string {
  const t = col.sourceType.toUpperCase();
  const kind = oracleKind(t);
  if (col.asFloat && (kind === 'integer' || kind === 'decimal' || kind === 'float')) {
    // 15 significant digits, as float8::numeric in Postgres and the Node side
    // (Oracle ROUND rounds exact decimal ties away from zero: a documented edge)
    const n = `CAST(${ref} AS NUMBER)`;
    return `CASE WHEN ${ref} IS NULL THEN NULL WHEN ${n} = 0 THEN '0' ELSE ${numText(`ROUND(${n}, 14 - FLOOR(LOG(10, ABS(${n}))))`)} END`;
  }
  switch (kind) {
    case 'integer': case 'decimal': return numText(ref); // NUMBER keeps no trailing zeros: already scale-normalised
    case 'float': return numText(`CAST(${ref} AS NUMBER)`);
    case 'timestamp': {
      // at the column's own precision: a DATE to the second, a TIMESTAMP(n) with the n digits it
      // keeps (6 at most: the lake's microseconds), trailing zeros removed as canonical.ts does
      const zoned = /WITH (LOCAL )?TIME ZONE/.test(t);
      const v = zoned ? `SYS_EXTRACT_UTC(${ref})` : ref;
      const n = t === 'DATE' ? 0 : Math.min(6, Number((/^TIMESTAMP\((\d)\)/.exec(t) ?? ['', '6'])[1]));
      if (n === 0) return `TO_CHAR(${v}, ${TS})`;
      return `RTRIM(RTRIM(TO_CHAR(${v}, 'YYYY-MM-DD HH24:MI:SS.FF${n}'), '0'), '.')`;
    }
    case 'binary': return `LOWER(RAWTOHEX(${ref}))`;
    default: return ref;
  }
}

/** Row text: NVL(canonical, CHR(30)) || CHR(31) per column. */
export function oraRowText(cols: SqlColumn[], alias = 't'): string {
  return cols.map((c) => `NVL(${oraCanonicalExpr(`${alias}.${oraIdent(c.name)}`, c)}, CHR(30)) || CHR(31)`).join(' || ');
}

/** First 8 MD5 bytes as an unsigned NUMBER. */
export function oraHashU64(textExpr: string): string {
  return `TO_NUMBER(RAWTOHEX(UTL_RAW.SUBSTR(DBMS_OBFUSCATION_TOOLKIT.MD5(input => UTL_I18N.STRING_TO_RAW(${textExpr}, 'AL32UTF8')), 1, 8)), 'XXXXXXXXXXXXXXXX')`;
}

/** Unsigned → signed 64-bit (Postgres' bigint reading of the same bytes). */
function signed(u: string): string {
  return `(${u} - CASE WHEN ${u} >= 9223372036854775808 THEN 18446744073709551616 ELSE 0 END)`;
}

function prefix(uKey: string, bits: number, kind: KeyHashKind = 'md5'): string {
  if (kind === 'int32') return bits >= 32 ? uKey : `FLOOR(${uKey} / ${2 ** (32 - bits)})`;
  return `FLOOR(${uKey} / ${2n ** BigInt(64 - bits)})`;
}

/** Key hash: unsigned md5 prefix, or the int32 mix of a single integer key (MOD keeps the low 32 bits of negatives as two's complement does). */
function keyHash(q: HashQuery): string {
  if (q.keyHash === 'int32') {
    const k = `t.${oraIdent(q.keys[0].name)}`;
    return `MOD(MOD(MOD(${k}, 4294967296) + 4294967296, 4294967296) * ${KEY_MIX}, 4294967296)`;
  }
  return oraHashU64(oraRowText(q.keys));
}

function whereClause(rel: SqlRelation): string {
  return rel.where.trim() ? ` WHERE ${rel.where}` : '';
}

function inner(q: HashQuery, withValues: boolean): string {
  const vals = withValues
    ? q.keys.map((c, i) => `, ${oraCanonicalExpr(`t.${oraIdent(c.name)}`, c)} AS K${i}`).join('')
      + q.columns.map((c, i) => `, ${oraCanonicalExpr(`t.${oraIdent(c.name)}`, c)} AS V${i}`).join('')
    : '';
  return `SELECT ${keyHash(q)} AS KU, ${oraHashU64(oraRowText(q.columns))} AS RU${vals} FROM ${q.rel.from}${whereClause(q.rel)}`;
}

function within(w: PrefixFilter | undefined, kind: KeyHashKind = 'md5'): string {
  if (!w || !w.prefixes.length) return '';
  // IN lists hold at most 1000 expressions in Oracle
  const chunks: string[] = [];
  for (let i = 0; i < w.prefixes.length; i += 1000) chunks.push(`${prefix('x.KU', w.bits, kind)} IN (${w.prefixes.slice(i, i + 1000).join(', ')})`);
  return ` WHERE ${chunks.length > 1 ? `(${chunks.join(' OR ')})` : chunks[0]}`;
}

export function oraCountSql(rel: SqlRelation): string {
  return `SELECT COUNT(*) AS N FROM ${rel.from}${whereClause(rel)}`;
}

/** Bucket digests: (B, N, S) per non-empty bucket; S the exact sum of signed row hashes. */
export function oraDigestSql(q: HashQuery, bits: number, w?: PrefixFilter): string {
  return `SELECT ${prefix('x.KU', bits, q.keyHash)} AS B, COUNT(*) AS N, TO_CHAR(SUM(${signed('x.RU')})) AS S FROM (${inner(q, false)}) x${within(w, q.keyHash)} GROUP BY ${prefix('x.KU', bits, q.keyHash)}`;
}

/** The rows of some buckets: RH (signed hash text), K0…, V0…. */
export function oraRowsSql(q: HashQuery, w: PrefixFilter): string {
  const cols = q.keys.map((_, i) => `x.K${i}`).concat(q.columns.map((_, i) => `x.V${i}`)).join(', ');
  return `SELECT TO_CHAR(${signed('x.RU')}) AS RH, ${cols} FROM (${inner(q, true)}) x${within(w, q.keyHash)}`;
}

/** The rows with these canonical keys (re-check after repair); keys travel as quoted literals. */
export function oraRowsForKeysSql(q: HashQuery, keys: (string | null)[][]): string {
  const lit = (v: string | null) => (v === null ? 'NULL' : `'${v.replace(/'/g, "''")}'`);
  const tuple = `(${q.keys.map((c) => oraCanonicalExpr(`t.${oraIdent(c.name)}`, c)).join(', ')})`;
  const preds: string[] = [];
  for (let i = 0; i < keys.length; i += 1000) preds.push(`${tuple} IN (${keys.slice(i, i + 1000).map((k) => `(${k.map(lit).join(', ')})`).join(', ')})`);
  const where = [q.rel.where, preds.length ? preds.join(' OR ') : '1 = 0'].filter((p) => p.trim()).map((p) => `(${p})`).join(' AND ');
  const cols = q.keys.map((_, i) => `x.K${i}`).concat(q.columns.map((_, i) => `x.V${i}`)).join(', ');
  return `SELECT TO_CHAR(${signed('x.RU')}) AS RH, ${cols} FROM (${inner({ ...q, rel: { ...q.rel, where } }, true)}) x`;
}
