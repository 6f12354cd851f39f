import { describe, expect, it } from 'vitest';
import { parsePositiveInt, parseStrategy, validateAlias, validateColumn, validateOwnerTable, validateTarget } from './validate';

describe('flag validation (seed 001 troubleshooting messages)', () => {
  it('--table / --target must be OWNER.TABLE', () => {
    expect(() => validateOwnerTable('table', 'CM_CASES')).toThrow("✗ --table must be OWNER.TABLE, got 'CM_CASES'");
    expect(() => validateOwnerTable('table', 'PAY. CM_CASES')).toThrow("✗ --table must be OWNER.TABLE, got 'PAY. CM_CASES'");
    expect(() => validateOwnerTable('target', 'CM_CASES')).toThrow("✗ --target must be OWNER.TABLE, got 'CM_CASES'");
    expect(validateOwnerTable('table', 'PAY.CM_CASES')).toBe('PAY.CM_CASES');
    expect(validateOwnerTable('table', 'public.big_t$1')).toBe('public.big_t$1');
  });
  it('target must be non-empty and must not contain |', () => {
    expect(() => validateTarget('')).toThrow("✗ target must be non-empty and must not contain '|'");
    expect(() => validateTarget('PAY.T|X')).toThrow("✗ target must be non-empty and must not contain '|'");
  });
  it('alias and column identifiers', () => {
    expect(() => validateAlias('s;drop')).toThrow('✗ invalid alias identifier');
    expect(() => validateAlias('')).toThrow('✗ invalid alias identifier');
    expect(validateAlias('s')).toBe('s');
    expect(() => validateColumn('a b')).toThrow('✗ invalid column identifier');
    expect(() => validateColumn("x' OR 1=1")).toThrow('✗ invalid column identifier');
    expect(validateColumn('s.CREATED_DT')).toBe('s.CREATED_DT');
    expect(validateColumn('ID#')).toBe('ID#');
  });
  it('counts must be positive integers', () => {
    for (const bad of ['0', '-3', 'abc', '1.5', '', undefined]) {
      expect(() => parsePositiveInt('chunks', bad)).toThrow('argument --chunks: must be a positive integer (>= 1)');
    }
    expect(() => parsePositiveInt('sample-rows', '0')).toThrow('argument --sample-rows: must be a positive integer (>= 1)');
    expect(parsePositiveInt('chunks', '64')).toBe(64);
  });
  it('unknown strategy names the flag', () => {
    expect(() => parseStrategy('ctid')).toThrow(/--strategy: invalid choice: 'ctid'/);
    expect(parseStrategy('ROWID')).toBe('rowid');
  });
});
