'use client';
import Link from 'next/link';
import { useQuery } from '@tanstack/react-query';
import { Fragment, useState } from 'react';
import { api } from '../../_components/api-client';
import { EngineBadge } from '../../_components/engine-badge';
import { count, formatTime, timeAgo } from '../../_components/format';
import { useCan } from '../../_components/user-context';
import { DqRunForm } from './dq-run-form';

interface DqRow {
  id: number; pipeline_run_id: string; table_name: string; branch_id: string; status: string;
  window_start: string | null; window_end: string | null; window_note: string | null; lake_snapshot_id: string | null;
  oracle_row_count: number | null; iceberg_row_count: number | null; row_count_delta: number | null;
  hash_matched: number | null; hash_only_in_oracle: number | null; hash_only_in_iceberg: number | null; hash_mismatch: number | null;
  hash_total_delta: number | null; hash_columns: string[] | null; columns_only_in_oracle: string[] | null; columns_only_in_iceberg: string[] | null;
  example_keys: Record<string, unknown> | null; repair: Record<string, unknown> | null; error_details: string | null; checked_at: string;
}

const keyText = (k: unknown): string => {
  const o = (k && typeof k === 'object' && 'key' in (k as object) ? (k as { key: unknown }).key : k) as Record<string, unknown>;
  const cols = k && typeof k === 'object' && 'columns' in (k as object) ? (k as { columns: string[] }).columns : null;
  const base = o && typeof o === 'object' ? Object.entries(o).map(([c, v]) => `${c}=${v}`).join(', ') : String(o);
  return cols?.length ? `${base} (${cols.join(', ')})` : base;
};

const CATEGORIES: [string, string][] = [['only_in_source', 'only in source'], ['only_in_lake', 'only in lake'], ['hash_mismatch', 'hash mismatch']];

/** The newest result of each table × branch (results arrive newest first). */
function latestPerUnit(rows: DqRow[]): DqRow[] {
  const seen = new Map<string, DqRow>();
  for (const r of rows) if (!seen.has(`${r.table_name}|${r.branch_id}`)) seen.set(`${r.table_name}|${r.branch_id}`, r);
  return [...seen.values()].sort((a, b) => a.table_name.localeCompare(b.table_name) || a.branch_id.localeCompare(b.branch_id));
}

function Details({ r }: { r: DqRow }) {
  const ex = r.example_keys ?? {};
  const mismatchCols = ex.mismatch_columns as Record<string, number> | undefined;
  return (
    <div className="dq-details">
      <dl className="meta">
        <div><dt>window</dt><dd>{r.window_start || r.window_end ? `${r.window_start ?? '…'} → ${r.window_end ?? 'last watermark'}` : 'whole partition'}</dd></div>
        <div><dt>checked</dt><dd>{formatTime(r.checked_at)} ({timeAgo(r.checked_at)})</dd></div>
        {r.window_note && <div><dt>window note</dt><dd>{r.window_note}</dd></div>}
        <div><dt>lake snapshot</dt><dd className="mono small">{r.lake_snapshot_id ?? '—'}</dd></div>
        <div><dt>run</dt><dd className="mono small">{r.pipeline_run_id}</dd></div>
        <div><dt>hashed columns</dt><dd className="small">{r.hash_columns?.join(', ') || '—'}</dd></div>
        {!!r.columns_only_in_oracle?.length && <div><dt>only in source</dt><dd className="small">{r.columns_only_in_oracle.join(', ')}</dd></div>}
        {!!r.columns_only_in_iceberg?.length && <div><dt>only in lake</dt><dd className="small">{r.columns_only_in_iceberg.join(', ')}</dd></div>}
        {mismatchCols && Object.keys(mismatchCols).length > 0 && (
          <div><dt>differing columns</dt><dd className="small">{Object.entries(mismatchCols).map(([c, n]) => `${c} (${n})`).join(', ')}</dd></div>
        )}
        {r.repair && <div><dt>repair</dt><dd className="mono small">{JSON.stringify(r.repair)}</dd></div>}
      </dl>
      {CATEGORIES.map(([k, label]) => {
        const list = Array.isArray(ex[k]) ? (ex[k] as unknown[]) : [];
        return list.length ? (
          <div key={k} className="dq-keys">
            <h3>{label} — example keys</h3>
            <ul>{list.map((key, i) => <li key={i} className="mono small">{keyText(key)}</li>)}</ul>
          </div>
        ) : null;
      })}
      {r.error_details && <div className="error-box"><strong>Error</strong><pre>{r.error_details}</pre></div>}
    </div>
  );
}

export function DqView() {
  const canRun = useCan('operator');
  const [showForm, setShowForm] = useState(false);
  const [started, setStarted] = useState<string | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const q = useQuery({
    queryKey: ['dq-results'],
    queryFn: () => api<{ results: DqRow[] }>('/api/v1/dq/results?limit=2000'),
    refetchInterval: 5000,
  });
  const rows = latestPerUnit(q.data?.results ?? []);
  const bad = rows.filter((r) => r.status === 'MISMATCH' || r.status === 'ERROR').length;

  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1>Data quality</h1>
          <p className="page-sub">The lake reconciled against every branch: windowed row counts and row hashes per table × branch, latest result of each.</p>
        </div>
        {canRun && (
          <button type="button" className="btn btn-primary" onClick={() => setShowForm((v) => !v)} aria-expanded={showForm}>
            {showForm ? 'Close' : 'Run check'}
          </button>
        )}
      </header>
      {canRun && showForm && <DqRunForm onStarted={(id) => { setStarted(id); setShowForm(false); }} onCancel={() => setShowForm(false)} />}
      {started && (
        <div className="flash" role="status">
          Check queued. <Link href={`/runs/${started}`}>Follow its log</Link>
          <button type="button" className="flash-close" aria-label="Dismiss" onClick={() => setStarted(null)}>×</button>
        </div>
      )}
      {rows.length > 0 && (
        <p className="muted small">{rows.length} table × branch pair{rows.length === 1 ? '' : 's'}; {bad ? <strong className="error-text">{bad} need attention</strong> : 'all clean or skipped'}. Click a row for its window, columns and example keys.</p>
      )}
      <section className="card card-flush">
        {q.isPending ? (
          <p className="empty">Loading results…</p>
        ) : q.isError ? (
          <p className="empty error-text">Could not load results: {(q.error as Error).message}</p>
        ) : rows.length === 0 ? (
          <div className="empty" data-testid="dq-empty">
            <p><strong>No checks have run yet.</strong></p>
            <p>
              After a load, compare the lake with the sources{canRun ? <> with “Run check”</> : null} or <code>tributary dq</code>;
              {' '}<code>tributary dq --self-test</code> checks against kept staging files without a source database.
            </p>
          </div>
        ) : (
          <div className="table-scroll">
            <table className="table table-compact" data-testid="dq-table">
              <thead>
                <tr>
                  <th>Table</th><th>Branch</th><th>Window</th><th>Status</th><th className="right">Source</th><th className="right">Lake</th><th className="right">Δ</th>
                  <th className="right">Matched</th><th className="right">Only src</th><th className="right">Only lake</th><th className="right">Mismatch</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((r) => {
                  const k = `${r.table_name}|${r.branch_id}`;
                  const isOpen = open === k;
                  return (
                    <Fragment key={k}>
                      <tr className="clickable" onClick={() => setOpen(isOpen ? null : k)} aria-expanded={isOpen}>
                        <td className="mono strong">{r.table_name}</td>
                        <td>{r.branch_id}</td>
                        <td className="small">{r.window_start || r.window_end ? `${r.window_start ?? '…'} → ${r.window_end ?? '…'}` : 'full'}{r.window_note && <div className="hint cell-note" title={r.window_note}>{r.window_note}</div>}</td>
                        <td><EngineBadge status={r.status} title={r.error_details ?? undefined} /></td>
                        <td className="num right">{count(r.oracle_row_count)}</td>
                        <td className="num right">{count(r.iceberg_row_count)}</td>
                        <td className={`num right${r.row_count_delta ? ' error-text strong' : ''}`}>{count(r.row_count_delta)}</td>
                        <td className="num right">{count(r.hash_matched)}</td>
                        <td className={`num right${r.hash_only_in_oracle ? ' error-text strong' : ''}`}>{count(r.hash_only_in_oracle)}</td>
                        <td className={`num right${r.hash_only_in_iceberg ? ' error-text strong' : ''}`}>{count(r.hash_only_in_iceberg)}</td>
                        <td className={`num right${r.hash_mismatch ? ' error-text strong' : ''}`}>{count(r.hash_mismatch)}</td>
                      </tr>
                      {isOpen && <tr className="detail-row"><td colSpan={11}><Details r={r} /></td></tr>}
                    </Fragment>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </div>
  );
}
