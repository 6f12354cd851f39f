import { describe, expect, it } from 'vitest';
import { repairWarning } from './repair-warning';

describe('repairWarning', () => {
  it('a repair that changed nothing says why', () => {
    expect(repairWarning({ status: 'PARTIAL', remaining: true, requested: { merge: 0, delete: 4 }, deleted: 0, recheck: { keys: 4, matched: 0, only_in_source: 0, only_in_lake: 4, hash_mismatch: 0 } }))
      .toBe('none of the 4 lake-only key(s) matched a live lake row, so nothing was deleted; the re-check still differs on 4 of 4 key(s)');
    expect(repairWarning({ status: 'PARTIAL', remaining: true, requested: { merge: 2, delete: 0 }, merged: { rows: 0, inserted: 0, updated: 0 } }))
      .toMatch(/^none of the 2 differing key\(s\) was found again at the source/);
    expect(repairWarning({ status: 'PARTIAL', remaining: true, requested: { merge: 0, delete: 0 }, note: '3 key(s) only in the lake kept (pass --repair-deletes to delete them)' }))
      .toBe('no difference was one this repair may change; 3 key(s) only in the lake kept (pass --repair-deletes to delete them)');
    expect(repairWarning({ status: 'FAILED', remaining: true, error: 'boom' })).toBe('the repair failed: boom');
  });
  it('a repair that fixed what it was asked to is silent', () => {
    expect(repairWarning({ status: 'REPAIRED', remaining: false, requested: { merge: 1, delete: 0 }, merged: { rows: 1, inserted: 0, updated: 1 } })).toBeNull();
  });
});
