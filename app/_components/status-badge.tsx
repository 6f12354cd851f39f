import type { RunStatus } from './api-client';

export function StatusBadge({ status }: { status: RunStatus }) {
  return <span className={`badge badge-${status}`} data-status={status}>{status}</span>;
}
