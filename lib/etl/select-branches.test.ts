import { describe, expect, it } from 'vitest';
import { createSyntheticSource } from '../sources';
import { EtlUsageError, selectBranches } from './select-branches';

const all = ['b0', 'b1', 'b2'].map((key, i) => ({ key, source: createSyntheticSource({ branch: key, branchIndex: i, rowsPerTable: 1 }) }));

describe('selectBranches', () => {
  it('keeps all without a selection, else the asked keys in the asked order', () => {
    expect(selectBranches(all, [])).toBe(all);
    expect(selectBranches(all, [' b2', 'b0']).map((b) => b.key)).toEqual(['b2', 'b0']);
  });
  it('refuses an unknown key, listing the known ones', () => {
    expect(() => selectBranches(all, ['b9'])).toThrow(EtlUsageError);
    expect(() => selectBranches(all, ['b9'])).toThrow('--branch: unknown branch b9 (known: b0, b1, b2)');
    expect(() => selectBranches([], ['b0'])).toThrow('(known: none)');
  });
});
