'use client';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { api, ApiError, ACTIVE, type LogLine, type RunView } from '../../../_components/api-client';
import { duration, formatTime } from '../../../_components/format';
import { ProgressBar } from '../../../_components/progress-bar';
import { StatusBadge } from '../../../_components/status-badge';
import { useCan } from '../../../_components/user-context';
import { ConfirmButton } from '../../../_components/confirm-button';
import { cancelRun, retryRun } from '../run-actions';
import { FailedUnits, RunWarnings } from '../run-outcome';
import { runSummary } from '../run-summary';
import { RunUnits } from './run-units';
import { PageHeader } from '../../../_components/page-header';

type RunWithLogs = RunView & { logs: LogLine[] };

/** A run's state and its log, tailed live: each poll asks only for lines after the last one seen. */
export function RunDetail({ id }: { id: string }) {
  const canRun = useCan('operator');
  const qc = useQueryClient();
  const [cancelError, setCancelError] = useState<string | null>(null);
  const [cancelling, setCancelling] = useState(false);
  const [now, setNow] = useState(() => Date.now());
  const logBox = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  const router = useRouter();
  // Debug lines (an error's stack, progress ticks) are for whoever debugs the engine: hidden unless asked for.
  const [showDebug, setShowDebug] = useState(false);

  const run = useQuery({
    queryKey: ['run', id],
    // The cache holds the whole log so far; each poll appends what is new.
    queryFn: async () => {
      const prev = qc.getQueryData<RunWithLogs>(['run', id])?.logs ?? [];
      const after = prev.length ? prev[prev.length - 1].id : 0;
      const r = await api<RunWithLogs>(`/api/v1/jobs/${id}?afterLogId=${after}`);
      return { ...r, logs: [...prev, ...r.logs.filter((l) => l.id > after)] };
    },
    retry: (n, e) => !(e instanceof ApiError && e.status === 404) && n < 2,
    // Keep tailing until the run is over (and once more to catch its last lines).
    refetchInterval: (q) => (q.state.data && !ACTIVE.includes(q.state.data.status) ? false : 1000),
  });
  const r = run.data;
  const allLines: LogLine[] = r?.logs ?? [];
  const debugCount = allLines.filter((l) => l.level === 'debug').length;
  const lines = showDebug ? allLines : allLines.filter((l) => l.level !== 'debug');

  useEffect(() => {
    if (!r || !ACTIVE.includes(r.status)) return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [r?.status]); // eslint-disable-line react-hooks/exhaustive-deps

  // Follow the log's end unless the reader scrolled up.
  useEffect(() => {
    const el = logBox.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, [lines.length]);

  async function cancel() {
    setCancelling(true);
    setCancelError(null);
    try {
      await cancelRun(id);
      await run.refetch();
    } catch (e) {
      setCancelError((e as Error).message);
    } finally {
      setCancelling(false);
    }
  }

  if (run.isError && !r) {
    const notFound = run.error instanceof ApiError && run.error.status === 404;
    return (
      <div className="page">
        <p className="crumbs"><Link href="/runs">Runs</Link> /</p>
        <section className="card"><p className="empty">{notFound ? `No run with id ${id}.` : `Could not load the run: ${(run.error as Error).message}`}</p></section>
      </div>
    );
  }
  if (!r) return <div className="page"><p className="crumbs"><Link href="/runs">Runs</Link> /</p><p className="empty">Loading…</p></div>;

  const active = ACTIVE.includes(r.status);
  return (
    <div className="page">
      <p className="crumbs"><Link href="/runs">Runs</Link> / <span className="mono">{r.id.slice(0, 8)}</span></p>
      <PageHeader title={r.kind} mono sub={<><StatusBadge status={r.status} />{r.cancelRequested && active && <span className="hint"> cancel requested — stopping at the next safe point</span>}</>}>
        {canRun && active && r.source !== 'cli' && (
          <ConfirmButton className="btn btn-danger" label={cancelling ? 'Cancelling…' : r.cancelRequested ? 'Cancel requested' : 'Cancel run'}
            question="Cancel this run?" confirmLabel="Yes, cancel" onConfirm={cancel} disabled={cancelling || r.cancelRequested} />
        )}
        {canRun && !active && (
          <button type="button" className="btn" onClick={async () => {
            setCancelError(null);
            try { router.push(`/runs/${await retryRun(id)}`); } catch (e) { setCancelError((e as Error).message); }
          }}>Retry</button>
        )}
      </PageHeader>
      {cancelError && <p className="form-error" role="alert">{cancelError}</p>}

      <section className="card">
        <p data-testid="run-summary"><span className="muted">{runSummary(r)}</span> <RunWarnings result={r.result} /></p>
        <ProgressBar done={r.progress.done} total={r.progress.total} status={r.status} />
        <dl className="meta">
          <div><dt>Run id</dt><dd className="mono">{r.id}</dd></div>
          <div><dt>Started by</dt><dd>{r.createdBy ?? '—'}{r.source ? ` (${r.source})` : ''}</dd></div>
          <div><dt>Created</dt><dd>{formatTime(r.createdAt)}</dd></div>
          <div><dt>Started</dt><dd>{formatTime(r.startedAt)}</dd></div>
          <div><dt>Finished</dt><dd>{formatTime(r.finishedAt)}</dd></div>
          <div><dt>Duration</dt><dd>{duration(r.startedAt, r.finishedAt, now)}</dd></div>
          <div><dt>Attempts</dt><dd>{r.attempts}</dd></div>
          <div><dt>Worker</dt><dd className="mono">{r.workerId ?? '—'}</dd></div>
        </dl>
        {r.error && <div className="error-box" data-testid="run-error"><strong>Error</strong><pre>{r.error}</pre></div>}
        <FailedUnits result={r.result} />
        <div className="json-pair">
          <div><h3>Parameters</h3><pre className="code">{JSON.stringify(r.params, null, 2)}</pre></div>
          {r.result != null && <div><h3>Result</h3><pre className="code">{JSON.stringify(r.result, null, 2)}</pre></div>}
        </div>
      </section>

      <RunUnits id={id} active={active} />

      <section className="card card-flush">
        <div className="card-head">
          <h2>Log</h2>
          <span className="muted">{lines.length} line{lines.length === 1 ? '' : 's'}{active ? ' · live' : ''}</span>
          <label className="inline-field" style={{ marginLeft: 'auto' }}>
            <input type="checkbox" checked={showDebug} onChange={(e) => setShowDebug(e.target.checked)} aria-label="Show debug lines" />
            <span>debug lines{debugCount ? ` (${debugCount})` : ''}</span>
          </label>
        </div>
        <div className="log" ref={logBox} data-testid="run-log"
          onScroll={(e) => { const el = e.currentTarget; stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40; }}>
          {lines.length === 0 ? (
            <div className="log-empty">{r.status === 'queued' ? 'Waiting for a worker to pick this run up…' : 'No log lines.'}</div>
          ) : lines.map((l) => (
            <div key={l.id} className={`log-line log-${l.level}`}>
              <span className="log-ts">{new Date(l.ts).toLocaleTimeString(undefined, { hour12: false })}</span>
              <span className="log-level">{l.level}</span>
              <span className="log-msg">{l.message}</span>
              {l.fields && Object.keys(l.fields).length > 0 && (
                <span className="log-fields">{Object.entries(l.fields).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`).join(' ')}</span>
              )}
            </div>
          ))}
        </div>
      </section>
    </div>
  );
}
