import { AppError } from '../errors';
import { lit } from './source-sql';

/**
 * ClickHouse session settings under which every model, seed-reading query
 * and test runs, so SQL written for dbt on PostgreSQL means what it means
 * there. Each is a ClickHouse default that differs from standard SQL:
 *
 * - `join_use_nulls = 1`: a LEFT/RIGHT/FULL JOIN's unmatched side is NULL,
 *   not the type's default (0, ''), which `coalesce`, `is null` and
 *   aggregates rely on.
 * - `union_default_mode = 'DISTINCT'`: a bare `UNION` is `UNION DISTINCT`
 *   (ClickHouse refuses it without this setting).
 * - `except_default_mode`, `intersect_default_mode = 'DISTINCT'`: bare
 *   `EXCEPT` / `INTERSECT` remove duplicates, as in SQL (ClickHouse: ALL).
 * - `cast_keep_nullable = 1`: `CAST(NULL AS int)` is NULL, not an error
 *   ("Cannot convert NULL value to non-Nullable type").
 * - `group_by_use_nulls = 1`: ROLLUP / CUBE / GROUPING SETS show NULL for a
 *   rolled-up key, not the type's default.
 *
 * Deliberately left at ClickHouse's value:
 * - `aggregate_functions_null_for_empty`: it would give SQL's NULL for
 *   `sum`/`max` over no rows, but also makes every aggregate's type Nullable
 *   (table columns, sort keys, incremental schema checks change); a dbt
 *   model aggregates groups, which are never empty. Set it per model if needed.
 * - `data_type_default_nullable`: it applies only to columns declared with a
 *   type, which models (CREATE … AS SELECT) never do; seed columns are
 *   declared Nullable already.
 * - `transform_null_in`: at 0, `NULL IN (…)` is not true, as in SQL.
 *
 * Integer division is a dialect difference no setting changes: `/` is
 * always a float division in ClickHouse (use `intDiv` for PostgreSQL's
 * integer `/`).
 */
export const DBT_SESSION_SETTINGS: Readonly<Record<string, string | number>> = Object.freeze({
  join_use_nulls: 1,
  union_default_mode: 'DISTINCT',
  except_default_mode: 'DISTINCT',
  intersect_default_mode: 'DISTINCT',
  cast_keep_nullable: 1,
  group_by_use_nulls: 1,
});

/**
 * Settings a model's `query_settings` may set: the SQL-semantics ones above
 * and their neighbours, and query resource limits. An allow-list: a setting
 * that reaches outside the query (readonly, allow_*, paths, credentials) is
 * not on it.
 */
const ALLOWED = new Set([
  ...Object.keys(DBT_SESSION_SETTINGS),
  'aggregate_functions_null_for_empty', 'data_type_default_nullable', 'transform_null_in', 'join_algorithm',
  'join_default_strictness', 'any_join_distinct_right_table_keys', 'prefer_column_name_to_alias',
  'analyzer_compatibility_join_using_top_level_identifier', 'joined_subquery_requires_alias',
  'session_timezone', 'date_time_input_format', 'date_time_overflow_behavior', 'decimal_check_overflow',
  'max_threads', 'max_memory_usage', 'max_execution_time', 'max_rows_to_read', 'max_bytes_to_read',
  'max_bytes_before_external_group_by', 'max_bytes_before_external_sort', 'max_block_size',
  'optimize_move_to_prewhere', 'optimize_read_in_order', 'optimize_aggregation_in_order', 'use_query_cache',
]);

export type SettingValue = string | number | boolean;

/** A model's `query_settings` checked: known names, scalar values. */
export function checkQuerySettings(v: unknown, where: string): Record<string, SettingValue> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new AppError('validation', `models: ${where}: query_settings must be a mapping of ClickHouse setting → value`, { field: 'query_settings' });
  const out: Record<string, SettingValue> = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if (!ALLOWED.has(k)) throw new AppError('validation', `models: ${where}: query_settings: ${k} is not a setting a model may change (allowed: ${[...ALLOWED].sort().join(', ')})`, { field: 'query_settings' });
    if (typeof x !== 'string' && typeof x !== 'boolean' && !(typeof x === 'number' && Number.isFinite(x))) throw new AppError('validation', `models: ${where}: query_settings: ${k} must be a number, a string or a boolean`, { field: 'query_settings' });
    out[k] = x;
  }
  return out;
}

/** Tributary's defaults under a model's own settings. */
export function sessionSettings(own?: Record<string, SettingValue>): Record<string, SettingValue> {
  return { ...DBT_SESSION_SETTINGS, ...own };
}

/** ` SETTINGS a = 1, b = 'x'` for the end of a SELECT. */
export function settingsClause(s: Record<string, SettingValue>): string {
  const parts = Object.entries(s).map(([k, v]) => `${k} = ${typeof v === 'string' ? lit(v) : typeof v === 'boolean' ? (v ? 1 : 0) : v}`);
  return parts.length ? ` SETTINGS ${parts.join(', ')}` : '';
}
