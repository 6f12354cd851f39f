import { describe, expect, test } from 'vitest';
import { failuresSql, failuresValue, parseCondition, testStatus, thresholdsOf } from './test-status';

// dbt's error_if / warn_if / fail_calc / limit (the test materialization's
// get_test_sql and TestRunner.build_test_run_result), as pure functions.

describe('test status', () => {
  test('conditions in the forms dbt documents, spaces allowed', () => {
    expect(parseCondition('>10', 'w')).toEqual({ op: '>', value: 10 });
    expect(parseCondition(' >= 5 ', 'w')).toEqual({ op: '>=', value: 5 });
    expect(parseCondition('<3', 'w')).toEqual({ op: '<', value: 3 });
    expect(parseCondition('!= 0', 'w')).toEqual({ op: '!=', value: 0 });
    expect(parseCondition('<> 0', 'w')).toEqual({ op: '!=', value: 0 });
    expect(parseCondition('=2', 'w')).toEqual({ op: '=', value: 2 });
    expect(parseCondition('== 2', 'w')).toEqual({ op: '=', value: 2 });
    expect(() => parseCondition('> 1; drop table x', 'm.yml: t: error_if')).toThrow(/m\.yml: t: error_if: expected a comparison/);
    expect(() => parseCondition('10', 'w')).toThrow(/expected a comparison/);
  });

  test('severity error: error_if first, then warn_if, else pass; severity warn: warn_if only', () => {
    const e = { severity: 'error' as const, error_if: '>10', warn_if: '>2' };
    expect(testStatus(e, 11)).toBe('fail');
    expect(testStatus(e, 3)).toBe('warn');
    expect(testStatus(e, 2)).toBe('pass');
    expect(testStatus({ severity: 'error' }, 1)).toBe('fail');
    expect(testStatus({ severity: 'error' }, 0)).toBe('pass');
    // with severity warn a test never fails, whatever error_if says
    expect(testStatus({ severity: 'warn', error_if: '>0', warn_if: '>5' }, 3)).toBe('pass');
    expect(testStatus({ severity: 'warn', warn_if: '>5' }, 6)).toBe('warn');
  });

  test('fail_calc over the failing rows, cut to limit; a NULL failures value is an error, as in dbt', () => {
    expect(failuresSql('SELECT 1', {})).toBe('SELECT count(*) AS failures\nFROM (\nSELECT 1\n) AS dbt_internal_test');
    expect(failuresSql('SELECT 1', { fail_calc: 'sum(n)', limit: 5 })).toMatch(/^SELECT sum\(n\) AS failures\nFROM \(\nSELECT \*\nFROM \(\nSELECT 1\n\) AS dbt_limited\nLIMIT 5\n\) AS dbt_internal_test$/);
    expect(failuresValue('3', undefined)).toBe(3);
    expect(failuresValue(2.5, 'avg(x)')).toBe(2.5);
    expect(() => failuresValue(null, 'sum(x)')).toThrow(/coalesce\(sum\(x\), 0\)/);
  });

  test('configs are checked where they are read', () => {
    expect(thresholdsOf({ limit: 5, fail_calc: ' sum(n) ', '+warn_if': '>1', store_failures: true }, 'w')).toEqual({ limit: 5, fail_calc: 'sum(n)', warn_if: '>1' });
    expect(() => thresholdsOf({ limit: -1 }, 'm.yml: t')).toThrow(/m\.yml: t: limit must be a whole number/);
    expect(() => thresholdsOf({ error_if: 'lots' }, 'm.yml: t')).toThrow(/m\.yml: t: error_if: expected a comparison/);
  });
});
