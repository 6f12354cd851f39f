import { describe, expect, it } from 'vitest';
import { failedUnits, runSummary, runWarnings } from './run-summary';

describe('runSummary', () => {
  it('etl: mode, self-test, branches, tables, rows and units', () => {
    expect(runSummary({
      kind: 'etl.run', params: { mode: 'INITIAL', selfTest: true, branch: ['b1', 'b2'], tables: ['orders', 'customers', 'items', 'lines'] },
      result: { units: [{ status: 'SUCCESS', rows: 1200 }, { status: 'SUCCESS', rows: 34 }, { status: 'FAILED', rows: 0, error: 'x' }] },
    })).toBe('INITIAL · self-test · branches b1, b2 · tables orders, customers, items +1 · 1,234 rows · units 2 ok / 1 failed');
    // Queued: no result yet, only what was asked.
    expect(runSummary({ kind: 'etl.run', params: { mode: 'INCREMENTAL' }, result: null })).toBe('INCREMENTAL · branches all · tables all');
  });

  it('dq: tables, branches and counts by status', () => {
    expect(runSummary({ kind: 'dq.run', params: { tables: ['orders'], branch: [] }, result: { units: [{ status: 'OK' }, { status: 'MISMATCH' }, { status: 'OK' }] } }))
      .toBe('tables orders · branches all · 1 MISMATCH, 2 OK');
  });

  it('slices: run id, executor, verdict and counts', () => {
    expect(runSummary({ kind: 'slices.run', params: { runId: 7, executor: 'native' }, result: { verdict: 'FINISHED', counts: { COMPLETED: 8, FAILED: 0 } } }))
      .toBe('run 7 · executor native · FINISHED · 8 COMPLETED');
    expect(runSummary({ kind: 'slices.split', params: { runId: 3 }, result: { slices: 12 } })).toBe('run 3 · 12 slices');
  });

  it('models: selection and pass/fail counts', () => {
    expect(runSummary({ kind: 'models.build', params: { select: ['+orders'] }, result: { results: [{ status: 'success' }, { status: 'pass' }, { status: 'fail' }, { status: 'skipped' }] } }))
      .toBe('select +orders · 2 passed / 1 failed / 1 skipped');
  });

  it('a mail is one line: recipients, subject and try, never its body', () => {
    const html = `<html><body>${'<p>flow nightly failed at node load</p>\n'.repeat(50)}</body></html>`;
    const line = runSummary({ kind: 'mail.send', params: { to: ['ops@example.com'], subject: 'Tributary flow nightly failed', text: 'long\nbody', html }, result: { attempts: 2 } });
    expect(line).toBe('to ops@example.com · "Tributary flow nightly failed" · try 2');
    expect(runSummary({ kind: 'system.check', params: { note: 'x'.repeat(500) }, result: null }).length).toBeLessThan(80);
  });

  it('any other kind: its key params', () => {
    expect(runSummary({ kind: 'system.check', params: { holdSeconds: 30 }, result: null })).toBe('holdSeconds 30');
    expect(runSummary({ kind: 'lake.expire', params: { table: 'etl.orders', olderThanDays: 7, nested: { a: 1 }, empty: '' }, result: null })).toBe('table etl.orders · olderThanDays 7');
  });
});

describe('warnings and failed units', () => {
  it('reads result.warnings', () => {
    expect(runWarnings({ result: { warnings: ['nothing to do: no branches configured'] } })).toEqual(['nothing to do: no branches configured']);
    expect(runWarnings({ result: null })).toEqual([]);
  });
  it('lists the units that did not succeed (planned units with a note count as failed)', () => {
    expect(failedUnits({ result: { units: [{ status: 'SUCCESS' }, { status: 'OK' }, { status: 'PLANNED' }, { status: 'PLANNED', error: 'relation does not exist' }, { status: 'ERROR' }] } }))
      .toEqual([{ status: 'PLANNED', error: 'relation does not exist' }, { status: 'ERROR' }]);
  });
});
