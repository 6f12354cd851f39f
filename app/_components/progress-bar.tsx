import type { RunStatus } from './api-client';

/** Units done out of total; an unknown total shows an indeterminate bar while running. */
export function ProgressBar({ done, total, status }: { done: number; total: number | null; status: RunStatus }) {
  const pct = total && total > 0 ? Math.min(100, Math.round((done / total) * 100)) : status === 'succeeded' ? 100 : 0;
  const label = total ? `${done} / ${total}` : done ? `${done}` : '';
  return (
    <div className="progress" role="progressbar" aria-valuemin={0} aria-valuemax={100} aria-valuenow={pct} title={label || status}>
      <div className={`progress-track progress-${status}`}>
        <div className="progress-fill" style={{ width: `${pct}%` }} />
      </div>
      <span className="progress-label">{label || (status === 'queued' ? 'waiting' : '')}</span>
    </div>
  );
}
