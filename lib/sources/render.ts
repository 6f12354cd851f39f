import type { QuerySpec } from '../config/query-spec';
import type { Bind, ColumnType, RenderedQuery } from './types';
import { toJulianDay } from './julian';
import { AppError } from '../errors';

/**
 * Query rendering: pure functions from a table definition to SQL text with
 * placeholders and binds. Identifiers were validated (`[A-Za-z0-9_$#]`) and a
 * subquery checked before they get here; every value travels as a bind.
 */
export type RenderDialect = 'oracle' | 'postgres';
export type Mode = 'INITIAL' | 'INCREMENTAL';

/** Reserved projection names of the helper's CDC / date columns (stripped before the write). */
export const HELPER_CDC = 'ETL_HELPER_CDC';
export const HELPER_DATE = 'ETL_HELPER_DATE';

export type { QuerySpec };

export interface FilterInput {
  mode: Mode;
  /** Type of the CDC column (decides the bind's cast). */
  cdcType?: ColumnType | null;
  /** Type of the date column: a numeric type means a Julian-day column. */
  dateType?: ColumnType | null;
  /** Last committed watermark texts (INCREMENTAL). */
  watermark?: { cdc: string | null; date: string | null } | null;
}

/** Output names of the columns the watermark is taken from. */
export function trackedColumns(spec: QuerySpec): { cdc: string | null; date: string | null } {
  if (spec.helper) return { cdc: HELPER_CDC, date: spec.helper.dateColumn ? HELPER_DATE : null };
  return { cdc: spec.cdcColumn ? spec.cdcColumn.toUpperCase() : null, date: spec.dateColumn ? spec.dateColumn.toUpperCase() : null };
}

function fromClause(spec: QuerySpec): string {
  const base = spec.source.kind === 'table' ? `${spec.source.name} t` : `${spec.source.sql.trim()} t`;
  if (!spec.helper) return base;
  const on = spec.helper.join.map(([c, h]) => `t.${c} = h.${h}`).join(' AND ');
  return `${base} INNER JOIN ${spec.helper.table} h ON ${on}`;
}

function selectList(spec: QuerySpec): string {
  const cols = ['t.*'];
  if (spec.helper) {
    cols.push(`h.${spec.helper.cdcColumn} AS ${HELPER_CDC}`);
    if (spec.helper.dateColumn) cols.push(`h.${spec.helper.dateColumn} AS ${HELPER_DATE}`);
  }
  return cols.join(', ');
}

/** The query with no filter and no rows: for describing the projected columns. */
export function renderDescribe(spec: QuerySpec, dialect: RenderDialect): RenderedQuery {
  return { sql: `SELECT ${selectList(spec)} FROM ${fromClause(spec)} WHERE 1 = 0`, binds: [] };
}

function isNumeric(t?: ColumnType | null): boolean {
  return !!t && ['int', 'long', 'decimal', 'double', 'float'].includes(t.kind);
}

function bindKind(t?: ColumnType | null): Bind['kind'] {
  if (!t) return 'timestamp';
  if (isNumeric(t)) return 'number';
  if (t.kind === 'date') return 'date';
  if (t.kind === 'timestamptz') return 'timestamptz';
  if (t.kind === 'timestamp') return 'timestamp';
  return 'text';
}

/** `2026-06-01` / `2026-06-01T10:00:00` → `2026-06-01 10:00:00.000000` (what both dialects' casts read). */
export function normalizeTimestampText(v: string, tz = false): string {
  const m = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/.exec(v.trim());
  if (!m) throw new AppError('validation', `sources: not a date/timestamp value: ${JSON.stringify(v)}`);
  const frac = (m[5] ?? '').padEnd(6, '0').slice(0, 6);
  let out = `${m[1]} ${m[2] ?? '00'}:${m[3] ?? '00'}:${m[4] ?? '00'}.${frac}`;
  if (tz) {
    let off = m[6] ?? '+00:00';
    if (off === 'Z') off = '+00:00';
    else if (/^[+-]\d{2}$/.test(off)) off += ':00';
    else if (/^[+-]\d{4}$/.test(off)) off = `${off.slice(0, 3)}:${off.slice(3)}`;
    out += ` ${off}`;
  }
  return out;
}

function makeBind(name: string, value: string | number, type: ColumnType | null | undefined, julianInput: boolean): Bind {
  const kind = bindKind(type);
  if (kind === 'number') {
    if (typeof value === 'number') return { name, value, kind };
    if (julianInput && /^\d{4}-\d{2}-\d{2}/.test(value)) return { name, value: toJulianDay(value), kind };
    const n = Number(value);
    if (!Number.isFinite(n)) throw new AppError('validation', `sources: ${name} ${JSON.stringify(value)} is not a number`);
    return { name, value: n, kind };
  }
  const text = String(value);
  if (kind === 'date') return { name, value: text.slice(0, 10), kind };
  if (kind === 'timestamp' || kind === 'timestamptz') return { name, value: normalizeTimestampText(text, kind === 'timestamptz'), kind };
  return { name, value: text, kind };
}

function placeholder(dialect: RenderDialect, n: number, b: Bind): string {
  if (dialect === 'postgres') {
    const cast = { timestamp: 'timestamp', timestamptz: 'timestamptz', date: 'date', number: 'numeric', text: 'text' }[b.kind];
    return `$${n}::${cast}`;
  }
  switch (b.kind) {
    case 'timestamp': return `TO_TIMESTAMP(:${n}, 'YYYY-MM-DD HH24:MI:SS.FF6')`;
    case 'timestamptz': return `TO_TIMESTAMP_TZ(:${n}, 'YYYY-MM-DD HH24:MI:SS.FF6 TZH:TZM')`;
    case 'date': return `TO_DATE(:${n}, 'YYYY-MM-DD')`;
    default: return `:${n}`;
  }
}

/**
 * The extraction query for one (table, branch) in a mode.
 * INITIAL: the optional range `date <op> value` (Julian literal for numeric date columns).
 * INCREMENTAL: `cdc > watermark OR date >= watermark` (helper columns when helper-driven);
 * a side whose watermark is still null is left out; with neither, the full table.
 */
export function renderQuery(spec: QuerySpec, dialect: RenderDialect, f: FilterInput): RenderedQuery {
  const cdcExpr = spec.helper ? `h.${spec.helper.cdcColumn}` : spec.cdcColumn ? `t.${spec.cdcColumn}` : null;
  const dateCol = spec.helper ? spec.helper.dateColumn : spec.dateColumn;
  const dateExpr = dateCol ? (spec.helper ? `h.${dateCol}` : `t.${dateCol}`) : null;
  const binds: Bind[] = [];
  const preds: string[] = [];
  const add = (b: Bind) => { binds.push(b); return placeholder(dialect, binds.length, b); };
  if (f.mode === 'INITIAL') {
    if (spec.initial && dateExpr && spec.initial.value !== null && spec.initial.value !== undefined) {
      const b = makeBind('initial_value', spec.initial.value, f.dateType, true);
      preds.push(`${dateExpr} ${spec.initial.operator} ${add(b)}`);
    }
  } else {
    const wm = f.watermark ?? { cdc: null, date: null };
    if (cdcExpr && wm.cdc !== null) preds.push(`${cdcExpr} > ${add(makeBind('cdc_watermark', wm.cdc, f.cdcType, false))}`);
    if (dateExpr && wm.date !== null) preds.push(`${dateExpr} >= ${add(makeBind('date_watermark', wm.date, f.dateType, false))}`);
  }
  let sql = `SELECT ${selectList(spec)} FROM ${fromClause(spec)}`;
  if (preds.length === 1) sql += ` WHERE ${preds[0]}`;
  else if (preds.length > 1) sql += ` WHERE (${preds.join(' OR ')})`;
  return { sql, binds };
}

/** Max integer digits and scale of unconstrained numeric columns over a query's rows. */
export function renderNumericProfile(q: RenderedQuery, dialect: RenderDialect, columns: string[]): RenderedQuery {
  const parts = columns.map((c, i) => dialect === 'postgres'
    ? `max(length(trunc(abs(q.${c}))::text)) AS i${i}, max(scale(q.${c})) AS s${i}`
    : `MAX(LENGTH(TO_CHAR(TRUNC(ABS(q.${c}))))) AS I${i}, MAX(CASE WHEN q.${c} = TRUNC(q.${c}) THEN 0 ELSE LENGTH(TO_CHAR(ABS(q.${c}) - TRUNC(ABS(q.${c})))) - 1 END) AS S${i}`);
  return { sql: `SELECT ${parts.join(', ')} FROM (${q.sql}) q`, binds: q.binds };
}

/** Oracle: binds as a positional array (`:1, :2…`); Postgres: `$1, $2…` text values. */
export function bindValues(q: RenderedQuery): (string | number)[] {
  return q.binds.map((b) => b.value);
}
