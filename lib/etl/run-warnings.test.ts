import { describe, expect, test } from 'vitest';
import type { UnitResult } from './run-types';
import { etlRunWarnings } from './run-warnings';

// A run that loaded nothing says so in its result (the Runs page's badge): no unit at all, or a
// plan (`--plan`, `plan: true`), whose units are rendered, not run — not a silent "succeeded".
describe('etlRunWarnings', () => {
  const unit = (status: UnitResult['status'], rows = 10, rowsDeleted?: number) => ({ status, rows, rowsDeleted }) as UnitResult;
  test('no unit: nothing to do, worded for a self-test or a run', () => {
    expect(etlRunWarnings({ units: [] })).toEqual(['nothing to do: no branches configured (add connections marked as branches) or no table selected']);
    expect(etlRunWarnings({ units: [] }, true)).toEqual(['nothing to do: no table selected']);
  });
  test('a plan says nothing was extracted or written; a run that loaded says nothing', () => {
    expect(etlRunWarnings({ units: [unit('PLANNED'), unit('PLANNED')] })).toEqual(['plan only: 2 unit(s) rendered, nothing extracted or written']);
    expect(etlRunWarnings({ units: [unit('SUCCESS'), unit('SUCCESS')] })).toEqual([]);
    expect(etlRunWarnings({ units: [unit('PLANNED'), unit('REFUSED')] })).toEqual([]);
  });
  test('units that all ran and read nothing: the run says so, with why for its mode', () => {
    const idle = [unit('SUCCESS', 0), unit('SUCCESS', 0)];
    expect(etlRunWarnings({ units: idle, mode: 'INCREMENTAL' })).toEqual(['nothing loaded: all 2 unit(s) extracted no rows and deleted none (no row changed at the sources since their watermarks)']);
    expect(etlRunWarnings({ units: idle, mode: 'INITIAL' })[0]).toMatch(/^nothing loaded: all 2 unit\(s\).*initial range selects no row/);
    // one unit loaded, or one deleted rows (deletes: detect), or one failed: not a run that did nothing
    expect(etlRunWarnings({ units: [unit('SUCCESS', 0), unit('SUCCESS', 3)], mode: 'INCREMENTAL' })).toEqual([]);
    expect(etlRunWarnings({ units: [unit('SUCCESS', 0), unit('SUCCESS', 0, 2)], mode: 'INCREMENTAL' })).toEqual([]);
    expect(etlRunWarnings({ units: [unit('SUCCESS', 0), unit('FAILED', 0)], mode: 'INCREMENTAL' })).toEqual([]);
  });
});
