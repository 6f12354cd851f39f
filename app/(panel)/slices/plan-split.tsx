'use client';
import Link from 'next/link';
import { useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ACTIVE } from '../../_components/api-client';
import { FormError } from '../../_components/form-error';
import { startJob } from '../../_components/start-job';
import { useRunOutcome } from '../connections/use-run-outcome';

interface Connection { name: string; kind: string }

/**
 * Plan a split from the panel (a `slices.split` job): the table, its SQL
 * template, the strategy and the number of slices, registered under a run
 * that the board then runs with either executor. "Probe first" starts a
 * `slices.probe` instead, which races the strategies on bounded samples.
 */
export function PlanSplit({ nextRunId, onClose }: { nextRunId: number; onClose(): void }) {
  const qc = useQueryClient();
  const conns = useQuery({ queryKey: ['connections'], queryFn: () => api<{ connections: Connection[] }>('/api/v1/connections') });
  const sources = (conns.data?.connections ?? []).filter((c) => c.kind === 'postgres' || c.kind === 'oracle');
  const [f, setF] = useState({ connection: '', table: '', query: '', target: '', strategy: 'auto', column: '', chunks: '8', runId: String(nextRunId) });
  const [error, setError] = useState<unknown>(null);
  const [job, setJob] = useState<{ id: string; kind: string } | null>(null);
  const outcome = useRunOutcome(job?.id ?? null);
  const set = (k: keyof typeof f) => (e: { target: { value: string } }) => setF({ ...f, [k]: e.target.value });
  const template = f.query.trim() || (f.table.trim() ? `SELECT t.* FROM ${f.table.trim()} t WHERE ~SPLIT~` : '');

  const submit = (kind: 'slices.split' | 'slices.probe') => async (e?: FormEvent) => {
    e?.preventDefault();
    setError(null);
    const p: Record<string, unknown> = { table: f.table.trim(), query: template, runId: Number(f.runId) };
    if (f.connection) p.connection = f.connection;
    if (kind === 'slices.split') {
      p.target = f.target.trim() || f.table.trim();
      p.strategy = f.strategy;
      if (f.column.trim()) p.column = f.column.trim();
      if (f.chunks.trim()) p.chunks = Number(f.chunks);
    }
    try {
      setJob({ id: await startJob(kind, p), kind });
      void qc.invalidateQueries({ queryKey: ['slice-runs'] });
    } catch (err) { setError(err); }
  };
  const o = outcome.data;
  const done = o && !ACTIVE.includes(o.status);
  const result = (o?.result ?? null) as { slices?: number; registered?: number; recommendation?: { strategy: string; key: string | null; chunk_count: number } } | null;

  return (
    <form className="form card" aria-label="Plan a split" onSubmit={submit('slices.split')} data-testid="plan-split">
      <h2>Plan a split</h2>
      <p className="field-help">Cut one large table into disjoint slices and register them as a run; open the run's board to start it with the native executor or Striim.</p>
      <div className="form-grid">
        <label className="field"><span>Source connection</span>
          <select name="connection" value={f.connection} onChange={set('connection')}>
            <option value="">default (env:source)</option>
            {sources.map((c) => <option key={c.name} value={c.name}>{c.name} ({c.kind})</option>)}
          </select>
        </label>
        <label className="field"><span>Table</span>
          <input name="table" value={f.table} onChange={set('table')} placeholder="public.orders" required />
          <small className="muted">schema.table the slices read (the driving table of the template)</small>
        </label>
        <label className="field"><span>SQL template</span>
          <textarea name="query" rows={3} value={f.query} onChange={set('query')} placeholder={template || 'SELECT t.* FROM public.orders t WHERE ~SPLIT~'} spellCheck={false} />
          <small className="muted">~SPLIT~ marks where each slice's predicate goes; empty: every column of the table</small>
        </label>
        <label className="field"><span>Target table</span>
          <input name="target" value={f.target} onChange={set('target')} placeholder={f.table || 'public.orders'} />
          <small className="muted">where the slices load (a Postgres table, or a lake table name); empty: the same name</small>
        </label>
        <label className="field"><span>Strategy</span>
          <select name="strategy" value={f.strategy} onChange={set('strategy')}>
            <option value="auto">auto — the best the table allows</option>
            <option value="rowid">rowid — physical ranges (ROWID / ctid)</option>
            <option value="column">column — ranges of one column</option>
            <option value="partition">partition — one slice per partition</option>
          </select>
        </label>
        {f.strategy === 'column' && (
          <label className="field"><span>Column</span><input name="column" value={f.column} onChange={set('column')} placeholder="id" /></label>
        )}
        <label className="field"><span>Slices</span><input name="chunks" type="number" min={1} value={f.chunks} onChange={set('chunks')} /></label>
        <label className="field"><span>Run id</span><input name="runId" type="number" min={1} value={f.runId} onChange={set('runId')} /></label>
      </div>
      <FormError error={error} />
      {job && (
        <p className="muted small" role="status" data-testid="plan-split-status" data-status={o?.status ?? 'queued'}>
          {job.kind} {o?.status ?? 'queued'}
          {done && o?.status === 'succeeded' && job.kind === 'slices.split' && result?.registered !== undefined && <> · {result.registered} slices registered · <Link href={`/slices/${f.runId}`}>open run {f.runId}</Link></>}
          {done && o?.status === 'succeeded' && job.kind === 'slices.probe' && result?.recommendation && (() => {
            const r = result.recommendation;
            return <> · recommends {r.strategy}{r.key ? `(${r.key})` : ''} × {r.chunk_count}{' '}
              <button type="button" className="btn btn-small" onClick={() => setF({ ...f, strategy: r.strategy, column: r.key ?? '', chunks: String(r.chunk_count) })}>Use it</button></>;
          })()}
          {done && o?.status !== 'succeeded' && <> · <span className="error-text">{o?.error}</span></>}
          {' '}· <Link href={`/runs/${job.id}`}>log</Link>
        </p>
      )}
      <div className="form-actions">
        <button type="submit" className="btn btn-primary" disabled={!f.table.trim()}>Split</button>
        <button type="button" className="btn" disabled={!f.table.trim()} onClick={() => void submit('slices.probe')()}>Probe first</button>
        <button type="button" className="btn btn-ghost" onClick={onClose}>Close</button>
      </div>
    </form>
  );
}
