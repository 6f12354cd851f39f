'use client';
import Link from 'next/link';
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useCan } from '../../_components/user-context';
import { PlanSplit } from './plan-split';
import { api } from '../../_components/api-client';
import { EngineBadge } from '../../_components/engine-badge';
import { duration, formatTime, timeAgo } from '../../_components/format';
import { useNow } from '../../_components/use-now';
import { QueryState } from '../../_components/query-state';
import { PageHeader } from '../../_components/page-header';

export interface SliceRunRow {
  run_id: number; generation: number; executor: string; verdict: string | null;
  watermark_label: string | null; watermark_value: string | null; started_at: string | null; finished_at: string | null;
  counts: Record<string, number> | null; current_rows: number;
}

const ORDER = ['COMPLETED', 'RUNNING', 'NEW', 'FAILED', 'QUARANTINED', 'COMPLETED-FAILEDDROP'];

export function SliceRunsView() {
  const now = useNow();
  const q = useQuery({ queryKey: ['slice-runs'], queryFn: () => api<{ runs: SliceRunRow[] }>('/api/v1/slices/runs'), refetchInterval: 3000 });
  const runs = [...(q.data?.runs ?? [])].sort((a, b) => b.run_id - a.run_id);
  const canRun = useCan('operator');
  const [planning, setPlanning] = useState(false);

  return (
    <div className="page">
      <PageHeader title="Slices" sub="Parallel initial loads: one Striim app (or the native executor) per slice, state in Postgres. Open a run for its live board.">
        {canRun && !planning && <button type="button" className="btn btn-primary" onClick={() => setPlanning(true)}>Plan a split</button>}
      </PageHeader>
      {planning && <PlanSplit nextRunId={(runs[0]?.run_id ?? 0) + 1} onClose={() => setPlanning(false)} />}
      <section className="card card-flush">
        {!q.isSuccess ? (
          <QueryState query={q} loading="Loading runs…" failure="Could not load slice runs" />
        ) : runs.length === 0 ? (
          <div className="empty" data-testid="slices-empty">
            <p><strong>No slice runs yet.</strong></p>
            <p>
              Split a big table into slices with <code>tributary slices split</code>, then start them with
              {' '}<code>tributary slices run --run-id 1 --query-file slices.sql</code> (add <code>--executor native</code> without Striim),
              or start a <code>slices.run</code> job from <Link href="/runs">Runs</Link>.
            </p>
          </div>
        ) : (
          <table className="table" data-testid="slice-runs">
            <thead>
              <tr><th>Run</th><th>Executor</th><th>Verdict</th><th className="col-progress">Progress</th><th>Slices by status</th><th>Watermark</th><th>Started</th><th>Duration</th></tr>
            </thead>
            <tbody>
              {runs.map((r) => {
                const c = r.counts ?? {};
                const total = Object.values(c).reduce((a, n) => a + n, 0);
                const done = (c.COMPLETED ?? 0) + (c['COMPLETED-FAILEDDROP'] ?? 0);
                const pct = total ? Math.round((done / total) * 100) : 0;
                const active = (c.RUNNING ?? 0) > 0;
                return (
                  <tr key={r.run_id} data-run={r.run_id}>
                    <td><Link href={`/slices/${r.run_id}`} className="strong">run {r.run_id}</Link>{r.generation > 1 && <span className="muted small" title="its slices were registered again (force fresh, or after a clear)"> · registration {r.generation}</span>}</td>
                    <td>{r.started_at ? r.executor : <span className="muted">not started</span>}</td>
                    <td>{r.verdict ? <EngineBadge status={r.verdict} /> : active ? <EngineBadge status="RUNNING" /> : <span className="muted">—</span>}</td>
                    <td className="col-progress">
                      <div className="progress" role="progressbar" aria-valuemin={0} aria-valuemax={100} aria-valuenow={pct}>
                        <div className={`progress-track progress-${r.verdict === 'FINISHED' ? 'succeeded' : r.verdict ? 'failed' : 'running'}`}><div className="progress-fill" style={{ width: `${pct}%` }} /></div>
                        <span className="progress-label">{done} / {total}</span>
                      </div>
                    </td>
                    <td className="small">
                      {ORDER.filter((s) => c[s]).map((s) => <span key={s} className="chip">{s.toLowerCase()} {c[s]}</span>)}
                    </td>
                    <td className="mono small">{r.watermark_value ? `${r.watermark_label ?? ''} ${r.watermark_value}` : <span className="muted">—</span>}</td>
                    <td title={formatTime(r.started_at)}>{timeAgo(r.started_at, now)}</td>
                    <td className="num">{duration(r.started_at, r.finished_at, now)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
      </section>
    </div>
  );
}
