'use client';
import Link from 'next/link';
import { useQuery } from '@tanstack/react-query';
import { api, ApiError } from '../../../_components/api-client';
import { EngineBadge } from '../../../_components/engine-badge';
import { count, formatTime } from '../../../_components/format';
import { BoardActions } from './board-actions';
import { QueryState } from '../../../_components/query-state';
import { PageHeader } from '../../../_components/page-header';

/** The feed of `GET /api/v1/slices/runs/:id/board` (lib/slices BoardFeed). */
interface Board {
  runId: number; generatedAt: string; executor: string | null; generation: number | null; started: boolean; targetLake: string | null; endpoints?: { source: string | null; target: string | null; mergeKeys: string[] };
  verdict: string | null; active: boolean; lockHolder: string | null;
  total: number; percentComplete: number; counts: Record<string, number>;
  inFlight: { slice: number; target: string; namespace: string | null; appname: string | null; attempts: number; startedAt: string | null; elapsedSeconds: number; rowsPerSecond: number | null; rowsWritten: number | null }[];
  recentCompletions: { slice: number; target: string; status: string; finishedAt: string | null; durationSeconds: number | null; rowsWritten: number | null; notes: string | null }[];
  failed: { slice: number; status: string; attempts: number; notes: string | null }[];
  stageWatch: { ts: string; event: string; slice: number | null; message: string }[];
  logTail: { ts: string; level: string; slice: number | null; message: string }[];
  watermark: { label: string | null; value: string; capturedAt: string | null; sourceDsn: string | null } | null;
  api: { retries: number; reauths: number };
}

const STATUS_ORDER = ['COMPLETED', 'RUNNING', 'NEW', 'FAILED', 'QUARANTINED', 'COMPLETED-FAILEDDROP'];
const secs = (s: number | null) => (s === null ? '—' : s < 60 ? `${s}s` : `${Math.floor(s / 60)}m ${String(Math.round(s % 60)).padStart(2, '0')}s`);
const clock = (iso: string) => new Date(iso).toLocaleTimeString(undefined, { hour12: false });

export function SliceBoard({ id }: { id: string }) {
  const q = useQuery({
    queryKey: ['slice-board', id],
    queryFn: () => api<Board>(`/api/v1/slices/runs/${encodeURIComponent(id)}/board?recent=10&lines=30`),
    // The live board: every 2 s, as `tributary slices board` does.
    refetchInterval: (query) => (query.state.error instanceof ApiError && query.state.error.status === 404 ? false : 2000),
    retry: (n, e) => !(e instanceof ApiError && e.status === 404) && n < 1,
  });
  const b = q.data;
  const tone = b?.verdict === 'FINISHED' ? 'succeeded' : b?.verdict ? 'failed' : 'running';
  const striim = (b?.executor ?? 'striim') === 'striim';

  return (
    <div className="page">
      <p className="crumbs"><Link href="/slices">Slices</Link> /</p>
      <PageHeader
        title={<>Slice run {id}{b?.generation && b.generation > 1 ? <span className="muted small" title="its slices were registered again (force fresh, or after a clear)"> · registration {b.generation}</span> : null}</>}
        sub={b && <>
          {b.started ? `${b.executor ?? 'striim'} executor` : b.total ? 'registered, not started (choose the executor when you run it)' : 'no slices'}{b.started && b.targetLake ? ' → lake' : ''} · {b.verdict ? <EngineBadge status={b.verdict} /> : b.active ? <EngineBadge status="RUNNING" /> : <span className="badge badge-muted">idle</span>}
          {b.lockHolder && b.active ? <span className="muted small"> held by {b.lockHolder}</span> : null}
          <span className="muted small">· updated {clock(b.generatedAt)}</span>
        </>} />
      {!q.isSuccess ? (
        <QueryState query={q} loading="Loading the board…" card />
      ) : b && (
        <>
          <BoardActions board={b} />
          <section className="card board-head" data-testid="slice-board">
            <div className="board-pct"><span className="stat-value">{b.percentComplete}%</span><span className="muted">complete · {b.total} slices</span></div>
            <div className={`progress-track progress-${tone} board-bar`} role="progressbar" aria-valuemin={0} aria-valuemax={100} aria-valuenow={b.percentComplete}>
              <div className="progress-fill" style={{ width: `${b.percentComplete}%` }} />
            </div>
            <div className="board-counts">
              {STATUS_ORDER.filter((s) => (b.counts[s] ?? 0) > 0 || s === 'COMPLETED' || s === 'RUNNING').map((s) => (
                <div key={s} className="board-count"><EngineBadge status={s} /><span className="num strong">{b.counts[s]}</span></div>
              ))}
            </div>
            <div className="muted small">
              {b.watermark ? <>Watermark <span className="mono">{b.watermark.label} {b.watermark.value}</span> captured {formatTime(b.watermark.capturedAt)}. </> : 'No watermark captured. '}
              {striim && b.started ? <>Striim API retries {b.api.retries}, re-authentications {b.api.reauths}.</> : null}
            </div>
          </section>

          <div className="grid-2">
            <section className="card card-flush">
              <div className="card-head"><h2>In flight</h2><span className="muted small">{b.inFlight.length}</span></div>
              {b.inFlight.length === 0 ? <p className="empty">Nothing running{b.verdict ? ': the run is over.' : '.'}</p> : (
                <div className="table-scroll"><table className="table" data-testid="slices-inflight">
                  <thead><tr><th>Slice</th><th>Target</th>{striim && <th>Namespace</th>}<th className="right">Elapsed</th><th className="right">Rows</th><th className="right">Rows/s</th></tr></thead>
                  <tbody>
                    {b.inFlight.map((s) => (
                      <tr key={s.slice}>
                        <td className="strong">#{s.slice}{s.attempts > 1 && <span className="hint"> try {s.attempts}</span>}</td>
                        <td className="mono small">{s.target}</td>
                        {striim && <td className="mono small muted">{s.namespace ?? '—'}</td>}
                        <td className="num right">{secs(s.elapsedSeconds)}</td>
                        <td className="num right">{count(s.rowsWritten)}</td>
                        <td className="num right">{count(s.rowsPerSecond)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table></div>
              )}
            </section>
            <section className="card card-flush">
              <div className="card-head"><h2>Recent completions</h2></div>
              {b.recentCompletions.length === 0 ? <p className="empty">No slice has finished yet.</p> : (
                <div className="table-scroll"><table className="table" data-testid="slices-completed">
                  <thead><tr><th>Slice</th><th>Target</th><th>Status</th><th className="right">Took</th><th className="right">Rows</th></tr></thead>
                  <tbody>
                    {b.recentCompletions.map((s) => (
                      <tr key={s.slice} title={s.finishedAt ? `finished ${formatTime(s.finishedAt)}` : undefined}>
                        <td className="strong">#{s.slice}</td>
                        <td className="mono small">{s.target}</td>
                        <td><EngineBadge status={s.status} title={s.notes ?? undefined} /></td>
                        <td className="num right">{s.durationSeconds === null ? '—' : `${s.durationSeconds}s`}</td>
                        <td className="num right">{count(s.rowsWritten)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table></div>
              )}
            </section>
          </div>

          {b.failed.length > 0 && (
            <section className="card card-flush">
              <div className="card-head"><h2>Failed and quarantined</h2><span className="muted small">re-queue with Reset (or <code>tributary slices reset --run-id {id} --include-quarantined</code>)</span></div>
              <table className="table" data-testid="slices-failed">
                <thead><tr><th>Slice</th><th>Status</th><th className="right">Attempts</th><th>Notes</th></tr></thead>
                <tbody>
                  {b.failed.map((s) => (
                    <tr key={s.slice}><td className="strong">#{s.slice}</td><td><EngineBadge status={s.status} /></td><td className="num right">{s.attempts}</td><td className="small">{s.notes ?? '—'}</td></tr>
                  ))}
                </tbody>
              </table>
            </section>
          )}

          <section className="card card-flush">
            <div className="card-head"><h2>Log</h2><span className="muted small">last {b.logTail.length} lines · stage watch: {b.stageWatch.filter((e) => e.event.startsWith('+')).length} appeared, {b.stageWatch.filter((e) => e.event.startsWith('-')).length} finished</span></div>
            <div className="log" data-testid="slices-log">
              {b.logTail.length === 0 ? <div className="log-empty">No log lines yet.</div> : b.logTail.map((l, i) => (
                <div key={i} className={`log-line log-${l.level}`}>
                  <span className="log-ts">{clock(l.ts)}</span>
                  <span className="log-level">{l.level}</span>
                  <span className="log-msg">{l.slice !== null ? `[#${l.slice}] ` : ''}{l.message}</span>
                </div>
              ))}
            </div>
          </section>
        </>
      )}
    </div>
  );
}
