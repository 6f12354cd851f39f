'use client';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../_components/api-client';
import { QueryState } from '../../_components/query-state';

interface RowsAnswer { columns: { name: string; type: string }[]; rows: Record<string, unknown>[]; truncated: boolean; limit: number }

const cell = (v: unknown) => (v === null || v === undefined ? <span className="muted">null</span> : typeof v === 'object' ? JSON.stringify(v) : String(v));

/** The first 100 rows of a lake table, of every branch or one (BRANCH_ID). */
export function RowPreview({ ident, branches }: { ident: string; branches: string[] }) {
  const [branch, setBranch] = useState('');
  const q = useQuery({
    queryKey: ['lake-rows', ident, branch],
    queryFn: () => api<RowsAnswer>(`/api/v1/lake/tables/${encodeURIComponent(ident)}/rows?limit=100${branch ? `&branch=${encodeURIComponent(branch)}` : ''}`),
    // Keep the last rows on screen while another branch loads.
    placeholderData: keepPreviousData,
  });
  return (
    <section className="card card-flush" aria-label="Row preview">
      <div className="card-head">
        <h2>Rows</h2>
        <label className="small">
          Branch{' '}
          <select name="branch" value={branch} onChange={(e) => setBranch(e.target.value)} data-testid="rows-branch">
            <option value="">all branches</option>
            {branches.map((b) => <option key={b} value={b}>{b}</option>)}
          </select>
        </label>
      </div>
      {!q.isSuccess ? <QueryState query={q} loading="Loading rows…" /> : q.data.rows.length === 0 ? (
        <p className="empty">No rows{branch ? ` in branch ${branch}` : ''}.</p>
      ) : (
        <>
          <div className="table-scroll">
            <table className="table table-compact" data-testid="lake-rows">
              <thead><tr>{q.data.columns.map((c) => <th key={c.name} title={c.type}>{c.name}</th>)}</tr></thead>
              <tbody>
                {q.data.rows.map((r, i) => <tr key={i}>{q.data.columns.map((c) => <td key={c.name} className="mono small">{cell(r[c.name])}</td>)}</tr>)}
              </tbody>
            </table>
          </div>
          <p className="muted small" style={{ padding: '8px 14px' }}>{q.data.rows.length} row{q.data.rows.length === 1 ? '' : 's'}{q.data.truncated ? ` (the first ${q.data.limit})` : ''}.</p>
        </>
      )}
    </section>
  );
}
