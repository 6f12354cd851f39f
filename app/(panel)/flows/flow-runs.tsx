'use client';
import Link from 'next/link';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../_components/api-client';
import { duration, formatTime, timeAgo } from '../../_components/format';
import { useNow } from '../../_components/use-now';

interface RunRow {
  id: string; status: string; trigger: string; scheduledFor: string | null; createdAt: string; startedAt: string | null; finishedAt: string | null;
  error: string | null; nodes: { nodeId: string; status: string }[];
}

export const badgeFor = (s: string) => `badge badge-${s === 'skipped' || s === 'pending' ? 'muted' : s}`;

/** A flow's recent runs with the status of each node. */
export function FlowRuns({ flowId }: { flowId: string }) {
  const now = useNow(2000);
  const q = useQuery({ queryKey: ['flow-runs', flowId], queryFn: () => api<{ runs: RunRow[] }>(`/api/v1/flows/${flowId}/runs?limit=30`), refetchInterval: 2000 });
  const runs = q.data?.runs ?? [];
  return (
    <section className="card card-flush" aria-label="Flow runs">
      <div className="card-head"><h2>Runs</h2><span className="muted small">newest first</span></div>
      {runs.length === 0 ? <p className="empty">No runs yet.</p> : (
        <div className="table-scroll">
          <table className="table table-compact" data-testid="flow-runs-table">
            <thead><tr><th>Created</th><th>Trigger</th><th>Status</th><th>Nodes</th><th className="right">Duration</th><th></th></tr></thead>
            <tbody>
              {runs.map((r) => (
                <tr key={r.id} data-status={r.status}>
                  <td title={formatTime(r.createdAt)}>{timeAgo(r.createdAt, now)}</td>
                  <td className="small">{r.trigger}{r.scheduledFor && <div className="muted">for {formatTime(r.scheduledFor)}</div>}</td>
                  <td><span className={badgeFor(r.status)}>{r.status}</span>{r.error && <div className="cell-error" title={r.error}>{r.error}</div>}</td>
                  <td className="small">{r.nodes.map((n) => <span key={n.nodeId} className={badgeFor(n.status)} title={n.status} style={{ marginRight: 4 }}>{n.nodeId}</span>)}</td>
                  <td className="num right">{r.startedAt ? duration(r.startedAt, r.finishedAt, now) : '—'}</td>
                  <td><Link href={`/flows/${flowId}/runs/${r.id}`}>Open</Link></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
