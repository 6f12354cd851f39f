import { AppError } from '../errors';

/**
 * dbt's test configs that turn a test query into a status (the `test`
 * materialization and `get_test_sql` of dbt's global project, and
 * TestRunner.build_test_run_result): the failures value is
 * `select <fail_calc> from (<test query> limit <limit>)`; with severity
 * error, `error_if` is checked first (→ fail), then `warn_if` (→ warn), else
 * the test passes; with severity warn only `warn_if` counts. Pure.
 */

/** The configs of one test that decide its status. */
export interface TestThresholds {
  severity: 'error' | 'warn';
  /** SQL over the failing rows giving the failures value. (Default: count(*)) */
  fail_calc?: string;
  /** (Default: != 0) */
  warn_if?: string;
  /** (Default: != 0) */
  error_if?: string;
  /** At most this many failing rows are read. (Default: none) */
  limit?: number;
}

export const DEFAULT_FAIL_CALC = 'count(*)';
export const DEFAULT_CONDITION = '!= 0';

type Op = '>' | '>=' | '<' | '<=' | '=' | '!=';

/**
 * dbt appends warn_if / error_if to the fail_calc as SQL (`count(*) != 0`);
 * Tributary takes the comparisons dbt documents — `>N`, `>=N`, `<N`, `<=N`,
 * `!=N` (`<>N`), `=N` (`==N`), spaces allowed — and compares in code, so a
 * condition is never SQL text.
 */
export function parseCondition(text: unknown, where: string): { op: Op; value: number } {
  const m = /^\s*(>=|<=|==|!=|<>|>|<|=)\s*(-?\d+(?:\.\d+)?)\s*$/.exec(String(text ?? ''));
  if (!m) throw new AppError('validation', `models: ${where}: expected a comparison with a number such as ">10", "!= 0" or ">=5", got ${JSON.stringify(text)}`);
  const op = m[1] === '==' ? '=' : m[1] === '<>' ? '!=' : (m[1] as Op);
  return { op, value: Number(m[2]) };
}

function holds(condition: string, failures: number): boolean {
  const { op, value } = parseCondition(condition, 'condition');
  switch (op) {
    case '>': return failures > value;
    case '>=': return failures >= value;
    case '<': return failures < value;
    case '<=': return failures <= value;
    case '=': return failures === value;
    case '!=': return failures !== value;
  }
}

/** pass, warn or fail for a failures value, as dbt decides it. */
export function testStatus(t: TestThresholds, failures: number): 'pass' | 'warn' | 'fail' {
  if (t.severity === 'error' && holds(t.error_if ?? DEFAULT_CONDITION, failures)) return 'fail';
  if (holds(t.warn_if ?? DEFAULT_CONDITION, failures)) return 'warn';
  return 'pass';
}

/** The failing rows the test reads: its query, cut to `limit` rows when set. */
export function failingRowsSql(sql: string, limit: number | undefined): string {
  return limit === undefined ? sql : `SELECT *\nFROM (\n${sql}\n) AS dbt_limited\nLIMIT ${limit}`;
}

/** `select <fail_calc> as failures from (<failing rows>)`: dbt's get_test_sql without the comparisons. */
export function failuresSql(sql: string, t: Pick<TestThresholds, 'fail_calc' | 'limit'>): string {
  return `SELECT ${t.fail_calc ?? DEFAULT_FAIL_CALC} AS failures\nFROM (\n${failingRowsSql(sql, t.limit)}\n) AS dbt_internal_test`;
}

/** A failures value as a number; dbt refuses a NULL (or a non-number) fail_calc result too. */
export function failuresValue(v: unknown, failCalc: string | undefined): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  if (!Number.isFinite(n)) {
    throw new AppError('validation', `models: fail_calc ${failCalc ?? DEFAULT_FAIL_CALC} gave ${JSON.stringify(v)}, not a number${v === null ? ` (over no rows, wrap it: coalesce(${failCalc}, 0))` : ''}`);
  }
  return n;
}

/**
 * A test's config keys that decide its status, checked: `limit` a whole
 * number ≥ 0, the conditions comparisons (parseCondition), fail_calc text.
 */
export function thresholdsOf(raw: Record<string, unknown>, where: string): Pick<TestThresholds, 'fail_calc' | 'warn_if' | 'error_if' | 'limit'> {
  const out: Pick<TestThresholds, 'fail_calc' | 'warn_if' | 'error_if' | 'limit'> = {};
  for (const [k, v] of Object.entries(raw)) {
    const key = k.replace(/^\+/, '');
    if (v === null || v === undefined) continue;
    if (key === 'warn_if' || key === 'error_if') { parseCondition(v, `${where}: ${key}`); out[key] = String(v).trim(); } else if (key === 'fail_calc') {
      const s = String(v).trim();
      if (!s) throw new AppError('validation', `models: ${where}: fail_calc is empty`);
      out.fail_calc = s;
    } else if (key === 'limit') {
      const n = typeof v === 'number' ? v : Number(String(v).trim());
      if (!Number.isInteger(n) || n < 0) throw new AppError('validation', `models: ${where}: limit must be a whole number ≥ 0, got ${JSON.stringify(v)}`);
      out.limit = n;
    }
  }
  return out;
}
