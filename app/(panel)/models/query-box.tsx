'use client';
import { useState } from 'react';
import { api, ACTIVE } from '../../_components/api-client';
import { FormError } from '../../_components/form-error';
import { useJobTail } from './use-job-tail';
import css from './models.module.css';

interface QueryResult { columns: { name: string; type: string }[]; rows: Record<string, unknown>[]; truncated: boolean; target: string }

/** A read-only SELECT on the target, run by the worker as a models.query job; the first 1,000 rows. */
export function QueryBox({ initial }: { initial: string }) {
  const [sql, setSql] = useState(initial);
  const [runId, setRunId] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  // the route answers when the worker has checked and run the query (or 202 while it still runs)
  const [posting, setPosting] = useState(false);
  const job = useJobTail(runId);
  const running = posting || (!!runId && (!job.data || ACTIVE.includes(job.data.status)));
  const result = job.data?.status === 'succeeded' ? (job.data.result as QueryResult) : null;

  async function run(e: React.FormEvent) {
    e.preventDefault();
    setError(null);
    setRunId(null);
    setPosting(true);
    try { setRunId((await api<{ id: string }>('/api/v1/models/query', { method: 'POST', body: { sql } })).id); } catch (err) { setError(err); } finally { setPosting(false); }
  }

  return (
    <section className="card card-flush" data-testid="query-box">
      <div className="card-head"><h2>Query</h2><span className="muted small">read-only SELECT on the target, first 1,000 rows (tables are <code>models.&lt;name&gt;</code>; the lake through what <code>source()</code> renders)</span></div>
      <form className={css.queryBox} onSubmit={run}>
        <textarea name="sql" aria-label="SQL query" value={sql} onChange={(e) => setSql(e.target.value)} spellCheck={false} />
        <div className="form-actions"><button type="submit" className="btn btn-primary" disabled={running}>{running ? 'Running…' : 'Run query'}</button></div>
        <FormError error={error} />
        {job.data?.status === 'failed' && <p className="form-error" role="alert">{job.data.error}</p>}
      </form>
      {result && (
        <div className={css.grid}>
          <table className="table" data-testid="query-result">
            <thead><tr>{result.columns.map((c) => <th key={c.name} title={c.type}>{c.name}</th>)}</tr></thead>
            <tbody>
              {result.rows.map((r, i) => <tr key={i}>{result.columns.map((c) => <td key={c.name} className="mono small">{r[c.name] === null ? <span className="muted">NULL</span> : typeof r[c.name] === 'object' ? JSON.stringify(r[c.name]) : String(r[c.name])}</td>)}</tr>)}
            </tbody>
          </table>
          <p className="muted small" style={{ padding: '6px 18px' }}>{result.rows.length} row{result.rows.length === 1 ? '' : 's'}{result.truncated ? ' (first 1,000 shown)' : ''} · {result.target}</p>
        </div>
      )}
    </section>
  );
}
