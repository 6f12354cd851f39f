'use client';
import Link from 'next/link';
import { useQuery } from '@tanstack/react-query';
import { api, type RunView } from '../../../_components/api-client';
import { duration } from '../../../_components/format';
import { StatusBadge } from '../../../_components/status-badge';

interface UnitAttempt { unit: string; attempt: number; runId: string; status: RunView['status']; workerId: string | null; startedAt: string | null; finishedAt: string | null; error: string | null }

/** A fanned-out run's units (TRIBUTARY_FANOUT=on): which worker ran each attempt. Shows nothing for a run that did not fan out. */
export function RunUnits({ id, active }: { id: string; active: boolean }) {
  const q = useQuery({
    queryKey: ['run-units', id],
    queryFn: () => api<{ units: UnitAttempt[] }>(`/api/v1/jobs/${id}/units`),
    refetchInterval: active ? 2000 : false,
  });
  const units = q.data?.units ?? [];
  if (!units.length) return null;
  const workers = new Set(units.map((u) => u.workerId).filter(Boolean));
  return (
    <section className="card card-flush" data-testid="run-units">
      <div className="card-head">
        <h2>Units</h2>
        <span className="muted">{new Set(units.map((u) => u.unit)).size} units · {workers.size} worker{workers.size === 1 ? '' : 's'}</span>
      </div>
      <table className="table">
        <thead><tr><th>Unit</th><th>Attempt</th><th>Status</th><th>Worker</th><th>Duration</th><th>Error</th></tr></thead>
        <tbody>
          {units.map((u) => (
            <tr key={u.runId}>
              <td className="mono"><Link href={`/runs/${u.runId}`}>{u.unit}</Link></td>
              <td>{u.attempt}</td>
              <td><StatusBadge status={u.status} /></td>
              <td className="mono">{u.workerId ?? '—'}</td>
              <td>{duration(u.startedAt, u.finishedAt, Date.now())}</td>
              <td>{u.error ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
