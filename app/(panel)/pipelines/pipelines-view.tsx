'use client';
import Link from 'next/link';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../_components/api-client';
import { EngineBadge } from '../../_components/engine-badge';
import { count, formatTime, ms, timeAgo } from '../../_components/format';
import { useCan } from '../../_components/user-context';
import { useNow } from '../../_components/use-now';
import { EtlRunForm } from './etl-run-form';
import { PipelineLibrary } from './pipeline-library';
import { QueryTable } from '../../_components/query-table';
import { PageHeader } from '../../_components/page-header';

type Row = Record<string, unknown>;
interface ControlRow extends Row {
  /** Lake namespace (control state is per lake table); `etl` is shown bare. */
  namespace?: string;
  table_name: string; branch_id: string; status: string; last_cdc_value: string | null; last_date_value: string | null;
  row_count: string | number; duration_ms: string | number; pipeline_run_id: string | null;
  last_run_finished_at: string | null; last_success_at: string | null; error_details: string | null;
}
interface RunLogRow extends Row {
  id: string | number; pipeline_run_id: string; namespace?: string; table_name: string; branch_id: string; mode: string; category: string | null; status: string;
  row_count: string | number; rows_deleted?: string | number; started_at: string; duration_ms: string | number | null; attempts: number; write_disposition: string | null;
  schema_discrepancy: unknown; error_details: string | null;
}

/** `etl-c384e754-0315-…` → `etl-c384e754…` (the full id in the cell's title). */
/** A lake table as control rows name it: `namespace.table`, or the bare table in the default namespace `etl`. */
const lakeName = (r: { namespace?: string; table_name: string }) => (r.namespace && r.namespace !== 'etl' ? `${r.namespace}.${r.table_name}` : r.table_name);
const shortRun = (id: string | null) => (!id ? '—' : id.length > 14 ? `${id.slice(0, 12)}…` : id);

function Drift({ value }: { value: unknown }) {
  if (value === null || value === undefined) return <span className="muted">—</span>;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const n = Array.isArray(value) ? value.length : typeof value === 'object' ? Object.keys(value as object).length : 1;
  return <span className="badge badge-cancelled" title={text}>drift · {n}</span>;
}

export function PipelinesView() {
  const canRun = useCan('operator');
  const now = useNow(5000);
  const [table, setTable] = useState('');
  const [branch, setBranch] = useState('');
  const [showForm, setShowForm] = useState(false);
  const [started, setStarted] = useState<string | null>(null);
  const control = useQuery({
    queryKey: ['etl-control'],
    queryFn: () => api<{ control: ControlRow[] }>('/api/v1/etl/control'),
    refetchInterval: 5000,
  });
  const qs = new URLSearchParams({ limit: '100', ...(table ? { table } : {}), ...(branch ? { branch } : {}) });
  const runs = useQuery({
    queryKey: ['etl-runs', table, branch],
    queryFn: () => api<{ runs: RunLogRow[] }>(`/api/v1/etl/runs?${qs}`),
    refetchInterval: 5000,
  });
  const all = control.data?.control ?? [];
  const tables = Array.from(new Set(all.map((r) => r.table_name))).sort();
  const branches = Array.from(new Set(all.map((r) => r.branch_id))).sort();
  const rows = all.filter((r) => (!table || r.table_name === table) && (!branch || r.branch_id === branch));
  const log = runs.data?.runs ?? [];

  return (
    <div className="page">
      <PageHeader title="Pipelines" sub="The pipeline library (saved job specs that flows run), and the multi-branch extract/load into the lake: the last outcome and watermark of every table × branch, and the run log.">
        {canRun && (
          <button type="button" className="btn btn-primary" onClick={() => setShowForm((v) => !v)} aria-expanded={showForm}>
            {showForm ? 'Close' : 'Run ETL'}
          </button>
        )}
      </PageHeader>

      {canRun && showForm && <EtlRunForm onStarted={(id) => { setStarted(id); setShowForm(false); }} onCancel={() => setShowForm(false)} />}
      {started && (
        <div className="flash" role="status">
          ETL run queued. <Link href={`/runs/${started}`}>Follow its log</Link>
          <button type="button" className="flash-close" aria-label="Dismiss" onClick={() => setStarted(null)}>×</button>
        </div>
      )}

      <PipelineLibrary />

      {all.length > 0 && (
        <div className="toolbar">
          <label className="inline-field">
            <span>Table</span>
            <select value={table} onChange={(e) => setTable(e.target.value)} aria-label="Filter by table">
              <option value="">all</option>
              {tables.map((t) => <option key={t} value={t}>{t}</option>)}
            </select>
          </label>
          <label className="inline-field">
            <span>Branch</span>
            <select value={branch} onChange={(e) => setBranch(e.target.value)} aria-label="Filter by branch">
              <option value="">all</option>
              {branches.map((b) => <option key={b} value={b}>{b}</option>)}
            </select>
          </label>
          <span className="toolbar-note">{control.dataUpdatedAt ? `updated ${timeAgo(new Date(control.dataUpdatedAt).toISOString(), now)}` : ''}</span>
        </div>
      )}

      <section className="card card-flush">
        <div className="card-head"><h2>Control — table × branch</h2><span className="muted small">etl_meta.etl_control</span></div>
        <QueryTable query={control} failure="Could not load the control table" isEmpty={() => all.length === 0} testId="etl-control-table"
          empty={<div className="empty" data-testid="pipelines-empty">
            <p><strong>Nothing loaded yet.</strong></p>
            <p>
              Define tables in <code>tables.json</code>, add branches under <Link href="/connections">Connections</Link>, then run an INITIAL load
              {canRun ? <> with “Run ETL” (or <code>tributary etl --mode INITIAL</code>)</> : <> (<code>tributary etl --mode INITIAL</code>, or ask an operator)</>}.
              {' '}“Self-test” loads synthetic branches without any database.
            </p>
          </div>}
          head={() => <tr><th>Table</th><th>Branch</th><th>Status</th><th>Watermark</th><th className="right">Rows</th><th className="right">Duration</th><th>Last success</th><th>Run</th></tr>}>
          {() => rows.map((r) => (
                  <tr key={`${r.namespace ?? ''}|${r.table_name}|${r.branch_id}`}>
                    <td className="mono strong">{lakeName(r)}</td>
                    <td>{r.branch_id}</td>
                    <td><EngineBadge status={r.status} title={r.error_details ?? undefined} />{r.error_details && <div className="cell-error" title={r.error_details}>{r.error_details}</div>}</td>
                    <td className="mono small">
                      {r.last_cdc_value ?? r.last_date_value ?? <span className="muted">none</span>}
                      {r.last_cdc_value && r.last_date_value ? <div className="muted">date {r.last_date_value}</div> : null}
                    </td>
                    <td className="num right">{count(r.row_count)}</td>
                    <td className="num right">{ms(r.duration_ms)}</td>
                    <td title={formatTime(r.last_success_at)}>{r.last_success_at ? timeAgo(r.last_success_at, now) : <span className="muted">never</span>}</td>
                    <td className="mono small muted" title={r.pipeline_run_id ?? undefined}>{shortRun(r.pipeline_run_id)}</td>
                  </tr>
                ))}
        </QueryTable>
      </section>

      <section className="card card-flush">
        <div className="card-head"><h2>Recent runs</h2><span className="muted small">etl_meta.etl_run_log · newest first</span></div>
        <QueryTable query={runs} failure="Could not load the run log" isEmpty={() => log.length === 0} compact testId="etl-runs-table"
          empty={`No ETL runs recorded${table || branch ? ' for this filter' : ' yet'}.`}
          head={() => <tr><th>Started</th><th>Run</th><th>Table</th><th>Branch</th><th>Mode</th><th>Status</th><th className="right">Rows</th><th className="right" title="rows deleted in the lake (tables.json deletes: detect)">Deleted</th><th className="right">Duration</th><th className="right">Attempts</th><th>Write</th><th>Schema</th></tr>}>
          {() => log.map((r) => (
                  <tr key={String(r.id)}>
                    <td title={formatTime(r.started_at)}>{timeAgo(r.started_at, now)}</td>
                    <td className="mono small" title={r.pipeline_run_id}>{shortRun(r.pipeline_run_id)}</td>
                    <td className="mono">{lakeName(r)}</td>
                    <td>{r.branch_id}</td>
                    <td className="small">{r.mode}{r.category ? <span className="muted"> · {r.category}</span> : null}</td>
                    <td><EngineBadge status={r.status} title={r.error_details ?? undefined} />{r.error_details && <div className="cell-error" title={r.error_details}>{r.error_details}</div>}</td>
                    <td className="num right">{count(r.row_count)}</td>
                    <td className="num right">{count(r.rows_deleted ?? 0)}</td>
                    <td className="num right">{ms(r.duration_ms)}</td>
                    <td className="num right">{r.attempts}</td>
                    <td className="small muted">{r.write_disposition ?? '—'}</td>
                    <td><Drift value={r.schema_discrepancy} /></td>
                  </tr>
                ))}
        </QueryTable>
      </section>
    </div>
  );
}
