'use client';
import Link from 'next/link';
import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useQuery } from '@tanstack/react-query';
import { Fragment, useState } from 'react';
import { api } from '../../_components/api-client';
import { FormError } from '../../_components/form-error';
import { startJob } from '../../_components/start-job';
import { dqPanelMessage, type DqFailedRun, type DqPoint } from '@/lib/api/presenters/dq';
import { DqTrend } from './dq-trend';
import { EngineBadge } from '../../_components/engine-badge';
import { count, formatTime, timeAgo } from '../../_components/format';
import { useCan } from '../../_components/user-context';
import { DqRunForm } from './dq-run-form';
import { QueryState } from '../../_components/query-state';
import { PageHeader } from '../../_components/page-header';

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
      {r.error_details && <div className="error-box"><strong>Error</strong><pre>{dqPanelMessage(r.error_details)}</pre></div>}
    </div>
  );
}

const FILTERS = ['table', 'branch', 'status', 'since'] as const;
type Filters = Record<(typeof FILTERS)[number], string>;

/** The filters live in the URL (shareable, kept on reload). */
function useUrlFilters(): [Filters, (f: Partial<Filters>) => void] {
  const sp = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const f = Object.fromEntries(FILTERS.map((k) => [k, sp.get(k) ?? ''])) as Filters;
  const set = (next: Partial<Filters>) => {
    const q = new URLSearchParams(sp.toString());
    for (const [k, v] of Object.entries(next)) { if (v) q.set(k, v); else q.delete(k); }
    router.replace(`${pathname}${q.toString() ? `?${q}` : ''}`, { scroll: false });
  };
  return [f, set];
}

const qs = (f: Filters) => FILTERS.filter((k) => f[k]).map((k) => `&${k}=${encodeURIComponent(f[k])}`).join('');

/** A text filter typed locally and put in the URL on Enter or when the field is left (not per keystroke). */
function TextFilter({ name, label, value, placeholder, onCommit }: { name: string; label: string; value: string; placeholder: string; onCommit(v: string): void }) {
  const [text, setText] = useState(value);
  const [seen, setSeen] = useState(value);
  if (value !== seen) { setSeen(value); setText(value); } // the URL changed (back/forward): follow it
  const commit = () => { if (text.trim() !== value) onCommit(text.trim()); };
  return (
    <label className="field"><span>{label}</span>
      <input name={name} value={text} placeholder={placeholder} onChange={(e) => setText(e.target.value)} onBlur={commit}
        onKeyDown={(e) => { if (e.key === 'Enter') { e.preventDefault(); commit(); } }} />
    </label>
  );
}

function FailedRuns({ runs }: { runs: DqFailedRun[] }) {
  if (!runs.length) return null;
  return (
    <section className="card card-flush" aria-label="Failed checks">
      <div className="card-head"><h2>Failed checks</h2><span className="muted small">runs that ended in an error</span></div>
      <ul className="recent" data-testid="dq-failed-runs">
        {runs.slice(0, 10).map((r) => (
          <li key={r.id}>
            <span className="badge badge-failed">failed</span>
            <span className="error-text">{r.error}</span>
            <span className="muted small">{timeAgo(r.createdAt)} · <Link href={`/runs/${r.id}`}>log</Link></span>
          </li>
        ))}
      </ul>
    </section>
  );
}

export function DqView() {
  const canRun = useCan('operator');
  const [filters, setFilters] = useUrlFilters();
  const [showForm, setShowForm] = useState(false);
  const [started, setStarted] = useState<string | null>(null);
  const [startError, setStartError] = useState<unknown>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [trendKey, setTrendKey] = useState<string | null>(null);
  const q = useQuery({
    queryKey: ['dq-results', filters],
    queryFn: () => api<{ results: DqRow[] }>(`/api/v1/dq/results?limit=2000${qs({ ...filters, since: '' })}`),
    refetchInterval: 5000,
  });
  const history = useQuery({
    queryKey: ['dq-history', filters],
    queryFn: () => api<{ points: DqPoint[]; pairs: { table: string; branch: string }[]; failedRuns: DqFailedRun[] }>(`/api/v1/dq/history?limit=5000${qs(filters)}`),
    refetchInterval: 5000,
  });
  const since = filters.since ? Date.parse(filters.since) : NaN;
  const rows = latestPerUnit((q.data?.results ?? []).filter((r) => Number.isNaN(since) || Date.parse(r.checked_at) >= since));
  const bad = rows.filter((r) => r.status === 'MISMATCH' || r.status === 'ERROR').length;
  const points = history.data?.points ?? [];
  const failedRuns = history.data?.failedRuns ?? [];
  const pairs = history.data?.pairs ?? [];
  const trendPair = trendKey ?? (pairs[0] ? `${pairs[0].table}|${pairs[0].branch}` : null);
  const trendPoints = points.filter((p) => `${p.table}|${p.branch}` === trendPair);
  const selfTestOf = (table: string, branch: string) => [...points].reverse().find((p) => p.table === table && p.branch === branch)?.selfTest ?? false;

  const recheck = async (table: string, branch: string, repair: boolean) => {
    const selfTest = selfTestOf(table, branch);
    const what = repair ? `Repair ${table} on branch ${branch}? Keys missing or different in the lake are re-extracted from the source and merged.` : `Re-check ${table} on branch ${branch}?`;
    if (!window.confirm(what)) return;
    setStartError(null);
    try {
      setStarted(await startJob('dq.run', { tables: [table], branch: [branch], ...(selfTest ? { selfTest: true } : {}), ...(repair ? { repair: true } : {}) }));
    } catch (e) { setStartError(e); }
  };

  return (
    <div className="page">
      <PageHeader title="Data quality" sub="The lake reconciled against every branch: windowed row counts and row hashes per table × branch, the latest result of each and its history.">
        {canRun && (
          <button type="button" className="btn btn-primary" onClick={() => setShowForm((v) => !v)} aria-expanded={showForm}>
            {showForm ? 'Close' : 'Run check'}
          </button>
        )}
      </PageHeader>
      {canRun && showForm && <DqRunForm onStarted={(id) => { setStarted(id); setShowForm(false); }} onCancel={() => setShowForm(false)} />}
      {started && (
        <div className="flash" role="status">
          Check queued. <Link href={`/runs/${started}`}>Follow its log</Link>
          <button type="button" className="flash-close" aria-label="Dismiss" onClick={() => setStarted(null)}>×</button>
        </div>
      )}
      <FormError error={startError} />
      <form className="card form" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
        <div className="form-grid">
          <TextFilter name="table" label="Table" value={filters.table} placeholder="all tables" onCommit={(v) => setFilters({ table: v })} />
          <TextFilter name="branch" label="Branch" value={filters.branch} placeholder="all branches" onCommit={(v) => setFilters({ branch: v })} />
          <label className="field"><span>Status</span>
            <select name="status" value={filters.status} onChange={(e) => setFilters({ status: e.target.value })}>
              <option value="">any</option>{['OK', 'MISMATCH', 'ERROR', 'SKIPPED'].map((x) => <option key={x} value={x}>{x}</option>)}
            </select>
          </label>
          <label className="field"><span>Since</span><input name="since" type="date" value={filters.since.slice(0, 10)} onChange={(e) => setFilters({ since: e.target.value })} /></label>
        </div>
      </form>
      <FailedRuns runs={failedRuns} />
      {rows.length > 0 && (
        <p className="muted small">{rows.length} table × branch pair{rows.length === 1 ? '' : 's'}; {bad ? <strong className="error-text">{bad} need attention</strong> : 'all clean or skipped'}. Click a row for its window, columns and example keys.</p>
      )}
      {pairs.length > 0 && (
        <section className="card" aria-label="Trend">
          <div className="card-head" style={{ padding: 0, border: 0 }}>
            <h2>Trend</h2>
            <select name="trend" value={trendPair ?? ''} onChange={(e) => setTrendKey(e.target.value)} data-testid="dq-trend-pair">
              {pairs.map((p) => <option key={`${p.table}|${p.branch}`} value={`${p.table}|${p.branch}`}>{p.table} @ {p.branch}</option>)}
            </select>
          </div>
          <p className="muted small">{trendPoints.length} check{trendPoints.length === 1 ? '' : 's'}: row-count delta (source − lake) and hash mismatches (only in source + only in lake + differing).</p>
          <DqTrend points={trendPoints} />
        </section>
      )}
      <section className="card card-flush">
        {!q.isSuccess ? (
          <QueryState query={q} loading="Loading results…" failure="Could not load results" />
        ) : rows.length === 0 ? (
          failedRuns.length > 0 ? (
            <p className="empty" data-testid="dq-empty">No results{FILTERS.some((k) => filters[k]) ? ' match these filters' : ''}: the checks above failed before writing any.</p>
          ) : (
            <div className="empty" data-testid="dq-empty">
              <p><strong>{FILTERS.some((k) => filters[k]) ? 'No checks match these filters.' : 'No checks have run yet.'}</strong></p>
              <p>
                After a load, compare the lake with the sources{canRun ? <> with “Run check”</> : null}; a self-test checks against the staging
                files an ETL run kept, without a source database.
              </p>
            </div>
          )
        ) : (
          <div className="table-scroll">
            <table className="table table-compact" data-testid="dq-table">
              <thead>
                <tr>
                  <th>Table</th><th>Branch</th><th>Window</th><th>Status</th><th className="right">Source</th><th className="right">Lake</th><th className="right">Δ</th>
                  <th className="right">Matched</th><th className="right">Only src</th><th className="right">Only lake</th><th className="right">Mismatch</th>{canRun && <th className="col-actions" aria-label="Actions" />}
                </tr>
              </thead>
              <tbody>
                {rows.map((r) => {
                  const k = `${r.table_name}|${r.branch_id}`;
                  const isOpen = open === k;
                  const selfTest = selfTestOf(r.table_name, r.branch_id);
                  // A repaired unit's counts are those the check found before its repair fixed them (and re-checked the keys):
                  // shown muted with a note, not in red beside an OK status.
                  const repaired = r.repair?.status === 'REPAIRED';
                  const bad = (n: number | null) => (n && !repaired ? ' error-text strong' : n && repaired ? ' muted' : '');
                  return (
                    <Fragment key={k}>
                      <tr className="clickable" onClick={() => { setOpen(isOpen ? null : k); setTrendKey(k); }} aria-expanded={isOpen}>
                        <td className="mono strong">{r.table_name}</td>
                        <td>{r.branch_id}</td>
                        <td className="small">{r.window_start || r.window_end ? `${r.window_start ?? '…'} → ${r.window_end ?? '…'}` : 'full'}{r.window_note && <div className="hint cell-note" title={r.window_note}>{r.window_note}</div>}</td>
                        <td><EngineBadge status={r.status} title={r.error_details ? dqPanelMessage(r.error_details) : undefined} />{repaired && (r.hash_only_in_oracle || r.hash_only_in_iceberg || r.hash_mismatch || r.row_count_delta) ? <div className="hint cell-note" data-testid="dq-repaired-note" title="the counts beside are what the check found before the repair">repaired; counts before repair</div> : null}</td>
                        <td className="num right">{count(r.oracle_row_count)}</td>
                        <td className="num right">{count(r.iceberg_row_count)}</td>
                        <td className={`num right${bad(r.row_count_delta)}`}>{count(r.row_count_delta)}</td>
                        <td className="num right">{count(r.hash_matched)}</td>
                        <td className={`num right${bad(r.hash_only_in_oracle)}`}>{count(r.hash_only_in_oracle)}</td>
                        <td className={`num right${bad(r.hash_only_in_iceberg)}`}>{count(r.hash_only_in_iceberg)}</td>
                        <td className={`num right${bad(r.hash_mismatch)}`}>{count(r.hash_mismatch)}</td>
                        {canRun && (
                          <td className="right nowrap col-actions" onClick={(e) => e.stopPropagation()}>
                            <button type="button" className="btn btn-ghost btn-small" onClick={() => void recheck(r.table_name, r.branch_id, false)}>Re-check</button>
                            <button type="button" className="btn btn-ghost btn-small" disabled={selfTest}
                              title={selfTest ? 'a self-test has no source to re-extract from' : 'Re-load missing and mismatched keys'}
                              onClick={() => void recheck(r.table_name, r.branch_id, true)}>Repair</button>
                          </td>
                        )}
                      </tr>
                      {isOpen && <tr className="detail-row"><td colSpan={canRun ? 12 : 11}><Details r={r} /></td></tr>}
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
