'use client';
import Link from 'next/link';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api, ACTIVE, type RunStatus, type RunView } from '../../_components/api-client';
import { duration, formatTime, timeAgo } from '../../_components/format';
import { ProgressBar } from '../../_components/progress-bar';
import { StatusBadge } from '../../_components/status-badge';
import { useCan } from '../../_components/user-context';
import { StartJobForm } from './start-job-form';

const STATUSES: RunStatus[] = ['queued', 'running', 'succeeded', 'failed', 'cancelled'];

/** Re-render every second so ages and running durations tick. */
function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => { const t = setInterval(() => setNow(Date.now()), 1000); return () => clearInterval(t); }, []);
  return now;
}

export function RunsView() {
  const canRun = useCan('operator');
  const [status, setStatus] = useState<RunStatus | ''>('');
  const [kind, setKind] = useState('');
  const [showStart, setShowStart] = useState(false);
  const [started, setStarted] = useState<string | null>(null);
  const now = useNow();
  const qs = new URLSearchParams({ limit: '100', ...(status ? { status } : {}), ...(kind ? { kind } : {}) });
  const runs = useQuery({
    queryKey: ['runs', status, kind],
    queryFn: () => api<{ runs: RunView[] }>(`/api/v1/jobs?${qs}`),
    // Poll fast while something is queued or running, slowly otherwise.
    refetchInterval: (q) => (q.state.data?.runs.some((r) => ACTIVE.includes(r.status)) ? 1000 : 4000),
  });
  const list = runs.data?.runs ?? [];
  const kinds = Array.from(new Set(list.map((r) => r.kind))).sort();

  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1>Runs</h1>
          <p className="page-sub">Every job the workers ran or will run, newest first. Updates live.</p>
        </div>
        {canRun && (
          <button type="button" className="btn btn-primary" onClick={() => setShowStart((v) => !v)} aria-expanded={showStart}>
            {showStart ? 'Close' : 'Start job'}
          </button>
        )}
      </header>

      {canRun && showStart && (
        <StartJobForm
          onStarted={(id) => { setStarted(id); setShowStart(false); void runs.refetch(); }}
          onCancel={() => setShowStart(false)}
        />
      )}
      {started && (
        <div className="flash" role="status">
          Job started. <Link href={`/runs/${started}`}>Open its log</Link>
          <button type="button" className="flash-close" aria-label="Dismiss" onClick={() => setStarted(null)}>×</button>
        </div>
      )}

      <div className="toolbar">
        <label className="inline-field">
          <span>Status</span>
          <select value={status} onChange={(e) => setStatus(e.target.value as RunStatus | '')} aria-label="Filter by status">
            <option value="">all</option>
            {STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
          </select>
        </label>
        <label className="inline-field">
          <span>Kind</span>
          <select value={kind} onChange={(e) => setKind(e.target.value)} aria-label="Filter by kind">
            <option value="">all</option>
            {Array.from(new Set([...kinds, ...(kind ? [kind] : [])])).map((k) => <option key={k} value={k}>{k}</option>)}
          </select>
        </label>
        <span className="toolbar-note">{runs.isFetching ? 'refreshing…' : runs.dataUpdatedAt ? `updated ${timeAgo(new Date(runs.dataUpdatedAt).toISOString(), now)}` : ''}</span>
      </div>

      <section className="card card-flush">
        {runs.isPending ? (
          <p className="empty">Loading runs…</p>
        ) : runs.isError ? (
          <p className="empty error-text">Could not load runs: {(runs.error as Error).message}</p>
        ) : list.length === 0 ? (
          <p className="empty">No runs{status || kind ? ' match these filters' : ' yet'}.{canRun && !status && !kind ? ' Start one with “Start job”: system.check is a quick end-to-end probe.' : ''}</p>
        ) : (
          <table className="table" data-testid="runs-table">
            <thead>
              <tr><th>Status</th><th>Kind</th><th className="col-progress">Progress</th><th>Started by</th><th>Created</th><th>Duration</th><th /></tr>
            </thead>
            <tbody>
              {list.map((r) => (
                <tr key={r.id} data-run-id={r.id}>
                  <td><StatusBadge status={r.status} />{r.cancelRequested && r.status === 'running' && <span className="hint"> cancelling</span>}</td>
                  <td><Link href={`/runs/${r.id}`} className="mono strong">{r.kind}</Link></td>
                  <td className="col-progress"><ProgressBar done={r.progress.done} total={r.progress.total} status={r.status} /></td>
                  <td className="muted">{r.createdBy ?? '—'}</td>
                  <td title={formatTime(r.createdAt)}>{timeAgo(r.createdAt, now)}</td>
                  <td className="num">{duration(r.startedAt, r.finishedAt, now)}</td>
                  <td className="right"><Link href={`/runs/${r.id}`} className="btn btn-ghost btn-small">Log</Link></td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </div>
  );
}
