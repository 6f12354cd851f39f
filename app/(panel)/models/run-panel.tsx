'use client';
import Link from 'next/link';
import { useEffect, useRef, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ACTIVE } from '../../_components/api-client';
import { FormError } from '../../_components/form-error';
import { StatusBadge } from '../../_components/status-badge';
import { startJob } from '../../_components/start-job';
import { ResultsTable } from './results-table';
import { useJobTail } from './use-job-tail';
import type { NodeResult } from './types';
import css from './models.module.css';

const words = (s: string) => s.split(/\s+/).map((x) => x.trim()).filter(Boolean);

/** run / test / build of a selection, with the job's live log and its per-node results. */
export function RunPanel({ canRun, selection }: { canRun: boolean; selection: string }) {
  const qc = useQueryClient();
  const [select, setSelect] = useState(selection);
  const [exclude, setExclude] = useState('');
  const [fullRefresh, setFullRefresh] = useState(false);
  const [runId, setRunId] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => { setSelect(selection); }, [selection]);
  const job = useJobTail(runId);
  const active = !!job.data && ACTIVE.includes(job.data.status);
  const results = useQuery({
    queryKey: ['model-results', runId],
    enabled: !!runId,
    queryFn: () => api<{ results: NodeResult[] }>(`/api/v1/models/results?runId=${encodeURIComponent(runId!)}`),
    refetchInterval: active ? 1000 : false,
  });
  const wasActive = useRef(false);
  useEffect(() => {
    if (wasActive.current && !active) { void results.refetch(); void qc.invalidateQueries({ queryKey: ['models-project'] }); void qc.invalidateQueries({ queryKey: ['model-history'] }); }
    wasActive.current = active;
  }, [active]); // eslint-disable-line react-hooks/exhaustive-deps

  async function start(command: 'run' | 'test' | 'build' | 'seed') {
    setBusy(true); setError(null);
    try {
      // models.test takes no fullRefresh
      const id = await startJob(`models.${command}`, command === 'test' ? { select: words(select), exclude: words(exclude) } : { select: words(select), exclude: words(exclude), fullRefresh });
      setRunId(id);
    } catch (e) { setError(e); } finally { setBusy(false); }
  }

  const logs = job.data?.logs ?? [];
  return (
    <section className="card card-flush" data-testid="run-panel">
      <div className="card-head"><h2>Run, test, build</h2><span className="muted small">dbt selection: <code>name</code> <code>+name</code> <code>name+</code> <code>tag:x</code> <code>path:dir</code> <code>resource_type:seed</code></span></div>
      <div className={css.runForm}>
        <label className="field"><span>Select</span><input type="text" name="select" value={select} onChange={(e) => setSelect(e.target.value)} placeholder="everything" /></label>
        <label className="field"><span>Exclude</span><input type="text" name="exclude" value={exclude} onChange={(e) => setExclude(e.target.value)} placeholder="nothing" /></label>
        <label className="inline-field"><input type="checkbox" checked={fullRefresh} onChange={(e) => setFullRefresh(e.target.checked)} /> full refresh</label>
        {canRun ? (
          <div className="form-actions">
            <button type="button" className="btn" disabled={busy || active} onClick={() => start('seed')}>Seed</button>
            <button type="button" className="btn" disabled={busy || active} onClick={() => start('run')}>Run</button>
            <button type="button" className="btn" disabled={busy || active} onClick={() => start('test')}>Test</button>
            <button type="button" className="btn btn-primary" disabled={busy || active} onClick={() => start('build')}>Build</button>
          </div>
        ) : <span className="muted small">Running models needs the operator role.</span>}
      </div>
      <FormError error={error} />
      {runId && job.data && (
        <>
          <div className="card-head">
            <h3>
              <Link href={`/runs/${runId}`} className="mono">{job.data.kind}</Link> <StatusBadge status={job.data.status} />
            </h3>
            <span className="muted small">{job.data.progress.done}/{job.data.progress.total ?? '?'} nodes{active ? ' · live' : ''}</span>
          </div>
          <div className="log" style={{ maxHeight: 220, minHeight: 60 }} data-testid="models-log">
            {logs.length === 0 ? <div className="log-empty">{job.data.status === 'queued' ? 'Waiting for a worker…' : 'No log lines.'}</div>
              : logs.map((l) => (
                <div key={l.id} className={`log-line log-${l.level}`}>
                  <span className="log-ts">{new Date(l.ts).toLocaleTimeString(undefined, { hour12: false })}</span>
                  <span className="log-level">{l.level}</span>
                  <span className="log-msg">{l.message}</span>
                </div>
              ))}
          </div>
          {job.data.error && <p className="form-error" role="alert" style={{ margin: 12 }}>{job.data.error}</p>}
          <ResultsTable results={results.data?.results ?? []} testid="run-results" />
        </>
      )}
    </section>
  );
}
