// Status badges for the engines' own status words (etl_control, dq results, slices),
// mapped onto the panel's run colours so green/red/blue mean the same everywhere.
const TONE: Record<string, string> = {
  SUCCESS: 'succeeded', OK: 'succeeded', COMPLETED: 'succeeded', FINISHED: 'succeeded',
  FAILED: 'failed', ERROR: 'failed', MISMATCH: 'failed', QUARANTINED: 'failed', 'FINISHED WITH FAILURES': 'failed',
  REFUSED: 'cancelled', SKIPPED: 'cancelled', 'COMPLETED-FAILEDDROP': 'cancelled', INTERRUPTED: 'cancelled',
  RUNNING: 'running', NEW: 'queued', PLANNED: 'queued',
};

export function EngineBadge({ status, title }: { status: string | null | undefined; title?: string }) {
  const s = status ?? '—';
  return <span className={`badge badge-${TONE[s] ?? 'muted'}`} data-status={s} title={title}>{s}</span>;
}
