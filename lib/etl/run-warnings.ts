import type { EtlRunSummary } from './run-types';

/**
 * What a run that loaded nothing says about it (a job's and a CLI run's `result.warnings`, shown
 * as a badge on the Runs page): no unit at all; a plan, whose units are rendered and not run; or
 * units that all ran and read nothing — a fanned-out run's units warn in their own jobs' logs, so
 * the run that was started says it too.
 */
export function etlRunWarnings(s: Pick<EtlRunSummary, 'units'> & Partial<Pick<EtlRunSummary, 'mode'>>, selfTest = false): string[] {
  if (!s.units.length) return [selfTest ? 'nothing to do: no table selected' : 'nothing to do: no branches configured (add connections marked as branches) or no table selected'];
  const planned = s.units.filter((u) => u.status === 'PLANNED').length;
  if (planned === s.units.length) return [`plan only: ${planned} unit(s) rendered, nothing extracted or written`];
  const idle = s.units.filter((u) => u.status === 'SUCCESS' && u.rows === 0 && !u.rowsDeleted).length;
  if (idle < s.units.length) return [];
  const why = s.mode === 'INCREMENTAL' ? 'no row changed at the sources since their watermarks'
    : s.mode === 'INITIAL' ? "the sources' tables are empty or their initial range selects no row"
      : 'each unit read no row';
  return [`nothing loaded: all ${idle} unit(s) extracted no rows and deleted none (${why})`];
}
