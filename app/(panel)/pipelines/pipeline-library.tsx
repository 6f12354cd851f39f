'use client';
import Link from 'next/link';
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../_components/api-client';
import { FormError } from '../../_components/form-error';
import { QueryTable } from '../../_components/query-table';
import { StatusBadge } from '../../_components/status-badge';
import { count, formatTime, ms, timeAgo } from '../../_components/format';
import { useCan } from '../../_components/user-context';
import { useNow } from '../../_components/use-now';
import type { RunStatus } from '../../_components/api-client';

export interface PipelineRow {
  id: string; name: string; description: string; tags: string[]; kind: string; params: Record<string, unknown>;
  command: string; createdBy: string | null; updatedAt: string;
}
interface PipelineDetail extends PipelineRow {
  usedBy: string[];
  runs: { jobRunId: string; flowRunId: string | null; status: RunStatus; createdAt: string; durationMs: number | null; rows: number | null; error: string | null }[];
}

function PipelineDetailRow({ p, onChanged }: { p: PipelineRow; onChanged(): void }) {
  const canRun = useCan('operator');
  const now = useNow(5000);
  const d = useQuery({ queryKey: ['pipeline', p.id], queryFn: () => api<PipelineDetail>(`/api/v1/pipelines/${p.id}`), refetchInterval: 4000 });
  const [edit, setEdit] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const act = async (fn: () => Promise<unknown>) => { setError(null); try { await fn(); onChanged(); await d.refetch(); } catch (e) { setError(e); } };
  return (
    <tr className="detail-row">
      <td colSpan={5}>
        <div className="pipeline-detail">
          <p className="small"><span className="muted">Command line:</span> <code data-testid="pipeline-command">{p.command}</code></p>
          {p.description && <p className="small">{p.description}</p>}
          <p className="small muted">Used by flows: {d.data?.usedBy.length ? d.data.usedBy.join(', ') : 'none'}</p>
          {canRun && (
            <div className="form-actions">
              <button type="button" className="btn btn-primary" onClick={() => act(() => api(`/api/v1/pipelines/${p.id}/run`, { method: 'POST' }))}>Run now</button>
              <button type="button" className="btn" onClick={() => act(() => api(`/api/v1/pipelines/${p.id}/clone`, { method: 'POST', body: {} }))}>Clone</button>
              <button type="button" className="btn" onClick={() => setEdit(edit === null ? JSON.stringify({ name: p.name, description: p.description, tags: p.tags, kind: p.kind, params: p.params }, null, 2) : null)}>{edit === null ? 'Edit' : 'Close editor'}</button>
              <button type="button" className="btn btn-ghost" onClick={() => { if (confirm(`Delete pipeline ${p.name}?`)) void act(() => api(`/api/v1/pipelines/${p.id}`, { method: 'DELETE' })); }}>Delete</button>
            </div>
          )}
          {edit !== null && (
            <div className="form">
              <label className="field">
                <span>Pipeline (JSON: name, description, tags, kind, params)</span>
                <textarea rows={10} value={edit} onChange={(e) => setEdit(e.target.value)} spellCheck={false} aria-label="Pipeline JSON" />
              </label>
              <button type="button" className="btn btn-primary" onClick={() => act(async () => {
                let body: unknown;
                try { body = JSON.parse(edit); } catch (e) { throw new Error(`not valid JSON: ${(e as Error).message}`); }
                await api(`/api/v1/pipelines/${p.id}`, { method: 'PATCH', body });
                setEdit(null);
              })}>Save changes</button>
            </div>
          )}
          <FormError error={error} />
          <h3 className="small">Run history</h3>
          {!d.data?.runs.length ? <p className="muted small">No runs yet.</p> : (
            <table className="table table-compact">
              <thead><tr><th>Started</th><th>Status</th><th className="right">Duration</th><th className="right">Rows</th><th>From</th><th>Job</th></tr></thead>
              <tbody>
                {d.data.runs.map((r) => (
                  <tr key={r.jobRunId}>
                    <td title={formatTime(r.createdAt)}>{timeAgo(r.createdAt, now)}</td>
                    <td><StatusBadge status={r.status} />{r.error && <div className="cell-error" title={r.error}>{r.error}</div>}</td>
                    <td className="num right">{ms(r.durationMs)}</td>
                    <td className="num right">{r.rows === null ? '—' : count(r.rows)}</td>
                    <td className="small">{r.flowRunId ? 'flow' : 'by hand'}</td>
                    <td><Link href={`/runs/${r.jobRunId}`} className="mono small">{r.jobRunId.slice(0, 8)}…</Link></td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      </td>
    </tr>
  );
}

/** The pipeline library: saved job specs, each with run-now, clone, edit, delete, history and its command line. */
export function PipelineLibrary() {
  const q = useQuery({ queryKey: ['pipelines'], queryFn: () => api<{ pipelines: PipelineRow[] }>('/api/v1/pipelines'), refetchInterval: 10_000 });
  const qc = useQueryClient();
  const [open, setOpen] = useState<string | null>(null);
  const list = q.data?.pipelines ?? [];
  return (
    <section className="card card-flush" aria-label="Pipeline library">
      <div className="card-head"><h2>Pipeline library</h2><span className="muted small">saved job specs · use them as flow nodes</span></div>
      <QueryTable query={q} failure="Could not load the pipelines" isEmpty={() => list.length === 0} testId="pipelines-table"
        empty="No pipelines saved yet. Open a run form (Run ETL here, or Data quality) and use “Save as pipeline”."
        head={() => <tr><th>Name</th><th>Kind</th><th>Tags</th><th>Updated</th><th></th></tr>}>
        {() => list.map((p) => [
                <tr key={p.id}>
                  <td className="strong">{p.name}</td>
                  <td className="mono small">{p.kind}</td>
                  <td className="small">{p.tags.join(', ') || <span className="muted">—</span>}</td>
                  <td className="small" title={formatTime(p.updatedAt)}>{formatTime(p.updatedAt)}</td>
                  <td className="right"><button type="button" className="btn btn-ghost" onClick={() => setOpen(open === p.id ? null : p.id)} aria-expanded={open === p.id}>{open === p.id ? 'Hide' : 'Details'}</button></td>
                </tr>,
                open === p.id ? <PipelineDetailRow key={`${p.id}-d`} p={p} onChanged={() => void qc.invalidateQueries({ queryKey: ['pipelines'] })} /> : null,
              ])}
      </QueryTable>
    </section>
  );
}
