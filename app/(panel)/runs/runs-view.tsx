'use client';
import Link from 'next/link';
import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api, ACTIVE, type RunStatus, type RunView } from '../../_components/api-client';
import { ConfirmButton } from '../../_components/confirm-button';
import { duration, formatTime, timeAgo } from '../../_components/format';
import { ProgressBar } from '../../_components/progress-bar';
import { StatusBadge } from '../../_components/status-badge';
import { useCan } from '../../_components/user-context';
import { cancelRun, retryRun } from './run-actions';
import { RunWarnings } from './run-outcome';
import { runSummary } from './run-summary';
import { StartJobForm } from './start-job-form';
import { QueryTable } from '../../_components/query-table';
import { PageHeader } from '../../_components/page-header';

const STATUSES: RunStatus[] = ['queued', 'running', 'succeeded', 'failed', 'cancelled'];
const SOURCES = ['api', 'cli', 'flow', 'schedule'] as const;
const PAGE = 50;

/** Re-render every second so ages and running durations tick. */
function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => { const t = setInterval(() => setNow(Date.now()), 1000); return () => clearInterval(t); }, []);
  return now;
}

// Filters and the page live in the URL (?status=&kind=&source=&before=): a link or a reload shows the same list.
export function RunsView() {
  const canRun = useCan('operator');
  const router = useRouter();
  const pathname = usePathname();
  const search = useSearchParams();
  const status = (search.get('status') ?? '') as RunStatus | '';
  const kind = search.get('kind') ?? '';
  const source = search.get('source') ?? '';
  const before = search.get('before') ?? '';
  const setParams = (patch: Record<string, string>) => {
    const next = new URLSearchParams(search.toString());
    for (const [k, v] of Object.entries(patch)) if (v) next.set(k, v); else next.delete(k);
    const qs = next.toString();
    router.replace(qs ? `${pathname}?${qs}` : pathname, { scroll: false });
  };
  const [showStart, setShowStart] = useState(false);
  const [flash, setFlash] = useState<{ id: string; text: string } | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const now = useNow();
  const qs = new URLSearchParams({ limit: String(PAGE), ...(status ? { status } : {}), ...(kind ? { kind } : {}), ...(source ? { source } : {}), ...(before ? { before } : {}) });
  const runs = useQuery({
    queryKey: ['runs', status, kind, source, before],
    queryFn: () => api<{ runs: RunView[] }>(`/api/v1/jobs?${qs}`),
    // Poll fast while something is queued or running, slowly otherwise.
    refetchInterval: (q) => (q.state.data?.runs.some((r) => ACTIVE.includes(r.status)) ? 1000 : 4000),
  });
  const kindsQ = useQuery({ queryKey: ['job-kinds'], queryFn: () => api<{ kinds: { kind: string }[] }>('/api/v1/job-kinds'), staleTime: 60_000 });
  const list = runs.data?.runs ?? [];
  const kinds = Array.from(new Set([...(kindsQ.data?.kinds ?? []).map((k) => k.kind), ...list.map((r) => r.kind), ...(kind ? [kind] : [])])).sort();
  const filtered = !!(status || kind || source);

  async function act(fn: () => Promise<void>) {
    setActionError(null);
    try { await fn(); await runs.refetch(); } catch (e) { setActionError((e as Error).message); }
  }

  return (
    <div className="page">
      <PageHeader title="Runs" sub="Every job the workers ran or will run, and engine commands run from the CLI, newest first. Updates live.">
        {canRun && (
          <button type="button" className="btn btn-primary" onClick={() => setShowStart((v) => !v)} aria-expanded={showStart}>
            {showStart ? 'Close' : 'Start job'}
          </button>
        )}
      </PageHeader>

      {canRun && showStart && (
        <StartJobForm
          onStarted={(id) => { setFlash({ id, text: 'Job started.' }); setShowStart(false); void runs.refetch(); }}
          onCancel={() => setShowStart(false)}
        />
      )}
      {flash && (
        <div className="flash" role="status">
          {flash.text} <Link href={`/runs/${flash.id}`}>Open its log</Link>
          <button type="button" className="flash-close" aria-label="Dismiss" onClick={() => setFlash(null)}>×</button>
        </div>
      )}
      {actionError && <p className="form-error" role="alert">{actionError}</p>}

      <div className="toolbar">
        <label className="inline-field">
          <span>Status</span>
          <select value={status} onChange={(e) => setParams({ status: e.target.value, before: '' })} aria-label="Filter by status">
            <option value="">all</option>
            {STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
          </select>
        </label>
        <label className="inline-field">
          <span>Kind</span>
          <select value={kind} onChange={(e) => setParams({ kind: e.target.value, before: '' })} aria-label="Filter by kind">
            <option value="">all</option>
            {kinds.map((k) => <option key={k} value={k}>{k}</option>)}
          </select>
        </label>
        <label className="inline-field">
          <span>Source</span>
          <select value={source} onChange={(e) => setParams({ source: e.target.value, before: '' })} aria-label="Filter by source">
            <option value="">all</option>
            {SOURCES.map((s) => <option key={s} value={s}>{s}</option>)}
          </select>
        </label>
        <span className="toolbar-note">{runs.isFetching ? 'refreshing…' : runs.dataUpdatedAt ? `updated ${timeAgo(new Date(runs.dataUpdatedAt).toISOString(), now)}` : ''}</span>
      </div>

      <section className="card card-flush">
        <QueryTable query={runs} loading="Loading runs…" failure="Could not load runs" isEmpty={() => list.length === 0} testId="runs-table"
          empty={`No runs${filtered ? ' match these filters' : before ? ' before this page' : ' yet'}.${canRun && !filtered && !before ? ' Start one with “Start job”: system.check is a quick end-to-end probe.' : ''}`}
          head={() => <tr><th>Status</th><th>Kind</th><th>Summary</th><th className="col-progress">Progress</th><th>Started by</th><th>Created</th><th>Duration</th><th className="col-actions" aria-label="Actions" /></tr>}>
          {() => list.map((r) => (
                <tr key={r.id} data-run-id={r.id}>
                  <td><StatusBadge status={r.status} />{r.cancelRequested && r.status === 'running' && <span className="hint"> cancelling</span>}</td>
                  <td><Link href={`/runs/${r.id}`} className="mono strong">{r.kind}</Link>{r.source && r.source !== 'api' && <span className="chip" style={{ marginLeft: 6 }}>{r.source}</span>}</td>
                  <td className="wrap" data-testid="run-summary">
                    <span className="muted">{runSummary(r)}</span> <RunWarnings result={r.result} />
                    {r.status === 'failed' && r.error && <div className="cell-error" title={r.error}>{r.error}</div>}
                  </td>
                  <td className="col-progress"><ProgressBar done={r.progress.done} total={r.progress.total} status={r.status} /></td>
                  <td className="muted">{r.createdBy ?? '—'}</td>
                  <td title={formatTime(r.createdAt)}>{timeAgo(r.createdAt, now)}</td>
                  <td className="num">{duration(r.startedAt, r.finishedAt, now)}</td>
                  <td className="right col-actions">
                    {canRun && ACTIVE.includes(r.status) && r.source !== 'cli' && (
                      <ConfirmButton label="Cancel" question="Cancel this run?" confirmLabel="Yes, cancel" disabled={r.cancelRequested}
                        onConfirm={() => act(() => cancelRun(r.id))} />
                    )}
                    {canRun && !ACTIVE.includes(r.status) && (
                      <button type="button" className="btn btn-ghost btn-small" onClick={() => act(async () => { const id = await retryRun(r.id); setFlash({ id, text: `Retry of ${r.kind} queued.` }); })}>Retry</button>
                    )}
                    {' '}<Link href={`/runs/${r.id}`} className="btn btn-ghost btn-small">Log</Link>
                  </td>
                </tr>
              ))}
        </QueryTable>
      </section>
      {(before || list.length === PAGE) && (
        <nav className="toolbar" aria-label="Pages">
          {before && <button type="button" className="btn btn-ghost btn-small" onClick={() => setParams({ before: '' })}>← Newest</button>}
          {list.length === PAGE && <button type="button" className="btn btn-ghost btn-small" onClick={() => setParams({ before: list[list.length - 1].createdAt })}>Older →</button>}
        </nav>
      )}
    </div>
  );
}
