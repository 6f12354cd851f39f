import type { EtlRunSummary } from './run-types';

/**
 * What a run that loaded nothing says about it (a job's and a CLI run's `result.warnings`, shown
 * as a badge on the Runs page): no unit at all, or a plan, whose units are rendered and not run.
 */
export function etlRunWarnings(s: Pick<EtlRunSummary, 'units'>, selfTest = false): string[] {
  if (!s.units.length) return [selfTest ? 'nothing to do: no table selected' : 'nothing to do: no branches configured (add connections marked as branches) or no table selected'];
  const planned = s.units.filter((u) => u.status === 'PLANNED').length;
  return planned === s.units.length ? [`plan only: ${planned} unit(s) rendered, nothing extracted or written`] : [];
}
