/** The colour of a load or build status: etl_control's SUCCESS / FAILED / REFUSED, model results' success / error / pass / fail / warn / skipped. */
export function statusTone(status: string | null | undefined): 'ok' | 'failed' | 'warn' | 'none' {
  if (!status) return 'none';
  const s = status.toLowerCase();
  if (s === 'success' || s === 'pass' || s === 'ok') return 'ok';
  if (s === 'failed' || s === 'error' || s === 'fail' || s === 'mismatch') return 'failed';
  return 'warn';
}
