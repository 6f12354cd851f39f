import { AppError } from '../errors';
import { DBT_SESSION_SETTINGS, settingsClause } from './session-settings';

/** Rows the query box shows. */
export const QUERY_ROW_LIMIT = 1000;

/** The query box's limits (the statement's own SETTINGS are refused by the allow-list, so these hold). */
export const QUERY_LIMITS = {
  /** Seconds a query may run. (Default: 30) */
  maxExecutionTime: 30,
  /** Bytes of memory a query may use. (Default: 1 GiB) */
  maxMemoryUsage: 1024 ** 3,
  /** Bytes of result kept. (Default: 64 MiB) */
  maxResultBytes: 64 * 1024 ** 2,
};

/**
 * The query box's statement wrapped: cut at QUERY_ROW_LIMIT + 1 rows (so the
 * caller can tell the result was truncated). What is inside is checked by
 * sql-guard's allow-list, on this wrapped text, before it runs with
 * `queryLimits`.
 */
export function readOnlyQuery(sql: string): string {
  const text = sql.replace(/[\s;]+$/, '');
  if (!text.trim()) throw new AppError('validation', 'models: the query is empty', { field: 'sql' });
  return `SELECT * FROM (\n${text}\n) LIMIT ${QUERY_ROW_LIMIT + 1}`;
}

/**
 * The settings the checked query runs with: `readonly = 2` (no writes, no DDL;
 * 1 would also refuse reading the models' views over the lake readers, as
 * ClickHouse counts their table functions as temporary tables), a row and
 * byte cap that stop reading rather than fail, a time and a memory limit;
 * and the models' SQL semantics (session-settings.ts), so a join typed in
 * the query box gives what the same join in a model gives.
 */
export function queryLimits(overrides: Partial<typeof QUERY_LIMITS> = {}): string {
  const l = { ...QUERY_LIMITS, ...overrides };
  return `SETTINGS readonly = 2, max_result_rows = ${QUERY_ROW_LIMIT + 1}, max_result_bytes = ${l.maxResultBytes}, result_overflow_mode = 'break', max_execution_time = ${l.maxExecutionTime}, max_memory_usage = ${l.maxMemoryUsage},${settingsClause(DBT_SESSION_SETTINGS).replace(/^ SETTINGS/, '')}`;
}
