'use client';
import Link from 'next/link';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api, ApiError, ACTIVE } from '../../../_components/api-client';
import { FormError } from '../../../_components/form-error';
import { startJob } from '../../../_components/start-job';
import { useCan } from '../../../_components/user-context';
import { useRunOutcome } from '../../connections/use-run-outcome';
import { DriftHistory } from '../drift-history';
import { RowPreview } from '../row-preview';
import { SnapshotChart } from '../snapshot-chart';
import { bytes, count, formatTime } from '../../../_components/format';
import type { LakeTableDetail } from '@/lib/api/presenters/lake';
import { snapshotRows } from '@/lib/api/presenters/snapshot-rows';
import { QueryState } from '../../../_components/query-state';
import { PageHeader } from '../../../_components/page-header';

/** Branches with live rows (the BRANCH_ID partitions), for the row preview's filter. */
const branchesOf = (t: LakeTableDetail) => [...new Set(t.rowsPerPartition.map((p) => p.partition.BRANCH_ID).filter((v) => v !== undefined && v !== null).map(String))].sort();

const partLabel = (p: Record<string, unknown>) => Object.entries(p).map(([k, v]) => `${k}=${v === null ? 'null' : String(v)}`).join(', ') || '(unpartitioned)';

const ACTIONS = {
  'lake.compact': { label: 'Compact', confirm: (t: string) => `Compact ${t}? Its data files are rewritten into files of the target size, folding delete files in (one new snapshot).` },
  'lake.expire': { label: 'Expire snapshots', confirm: (t: string) => `Expire old snapshots of ${t}? Snapshots past the retention are removed and files no kept snapshot references are deleted; time travel to them ends.` },
  // a dry run first (nothing deleted, no confirmation); the deletion is confirmed from its preview
  'lake.remove_orphans': { label: 'Remove orphan files', confirm: null },
} as const;
type Action = keyof typeof ACTIONS;

/** What `lake.remove_orphans` returns (lib/lake-admin/remove-orphans.ts `orphanSummary`). */
interface OrphanSummary { dryRun: boolean; olderThan: string; orphanFiles: number; orphanBytes: number; deletedFiles: number; deletedBytes: number; recentUnreferenced: number; files: string[] }

function orphanConfirm(t: string, r: OrphanSummary): string {
  return `Delete ${r.orphanFiles} orphan files (${bytes(r.orphanBytes)}) of ${t}? No metadata references them and the preview found them last modified before ${formatTime(r.olderThan)}; the deletion checks every file again and keeps any written since.`;
}

function Outcome({ kind, dryRun, result }: { kind: Action; dryRun: boolean; result: unknown }) {
  if (kind !== 'lake.remove_orphans') {
    return <span className="muted"> — {Object.entries(result as Record<string, unknown>).map(([k, v]) => `${k} ${v}`).join(', ')}</span>;
  }
  const r = result as OrphanSummary;
  return (
    <span className="muted" data-testid="lake-orphans-outcome">
      {' — '}{dryRun ? `${r.orphanFiles} orphan files (${bytes(r.orphanBytes)}) would be deleted` : `deleted ${r.deletedFiles} orphan files (${bytes(r.deletedBytes)})`}
      {r.recentUnreferenced ? `; ${r.recentUnreferenced} unreferenced files are younger than the cutoff and stay` : ''}
      {dryRun && r.files.length > 0 && (
        <details><summary>files{r.orphanFiles > r.files.length ? ` (first ${r.files.length})` : ''}</summary><ul className="mono small">{r.files.map((f) => <li key={f}>{f}</li>)}</ul></details>
      )}
    </span>
  );
}

/**
 * Operators: Compact / Expire start the `lake.*` jobs after a confirmation, and show how the run ended;
 * Remove orphan files runs as a dry run first and offers the deletion from its preview.
 */
function Maintenance({ ident, onDone }: { ident: string; onDone(): void }) {
  const [run, setRun] = useState<{ id: string; kind: Action; dryRun: boolean } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const outcome = useRunOutcome(run?.id ?? null);
  const status = outcome.data?.status;
  const busy = !!run && (!status || ACTIVE.includes(status));
  useEffect(() => { if (status && !ACTIVE.includes(status)) onDone(); }, [status]); // eslint-disable-line react-hooks/exhaustive-deps
  const start = async (kind: Action, params: Record<string, unknown> = {}, confirm: string | null = ACTIONS[kind].confirm?.(ident) ?? null) => {
    if (confirm && !window.confirm(confirm)) return;
    setError(null);
    const dryRun = params.dryRun === true;
    try { setRun({ id: await startJob(kind, { table: ident, ...params }), kind, dryRun }); } catch (e) { setError(e); }
  };
  const preview = run?.kind === 'lake.remove_orphans' && run.dryRun && status === 'succeeded' ? outcome.data?.result as OrphanSummary | undefined : undefined;
  return (
    <div className="form-actions" data-testid="lake-actions">
      {(Object.keys(ACTIONS) as Action[]).map((k) => (
        <button key={k} type="button" className="btn btn-ghost" disabled={busy} onClick={() => void start(k, k === 'lake.remove_orphans' ? { dryRun: true } : {})}>{ACTIONS[k].label}</button>
      ))}
      {run && (
        <span className="small" role="status" data-testid="lake-action-status" data-status={status ?? 'queued'}>
          {ACTIONS[run.kind].label}{run.dryRun ? ' (dry run)' : ''}: <strong>{status ?? 'queued'}</strong>
          {status === 'succeeded' && outcome.data?.result ? <Outcome kind={run.kind} dryRun={run.dryRun} result={outcome.data.result} /> : null}
          {status === 'failed' && <span className="error-text"> — {outcome.data?.error}</span>}
          {' '}<Link href={`/runs/${run.id}`}>run</Link>
        </span>
      )}
      {preview && preview.orphanFiles > 0 && (
        <button type="button" className="btn btn-danger" data-testid="lake-orphans-delete" onClick={() => void start('lake.remove_orphans', { dryRun: false }, orphanConfirm(ident, preview))}>
          Delete {preview.orphanFiles} orphan files
        </button>
      )}
      <FormError error={error} />
    </div>
  );
}

export function LakeTableView({ ident }: { ident: string }) {
  const canRun = useCan('operator');
  const qc = useQueryClient();
  const q = useQuery({
    queryKey: ['lake-table', ident],
    queryFn: () => api<LakeTableDetail>(`/api/v1/lake/tables/${encodeURIComponent(ident)}`),
    refetchInterval: 10_000,
    retry: (n, e) => !(e instanceof ApiError && e.status === 404) && n < 1,
  });
  const t = q.data;

  return (
    <div className="page">
      <p className="crumbs"><Link href="/lake">Lake</Link> / <span className="mono">{ident}</span></p>
      <PageHeader title={ident} mono sub={t && <>Iceberg v{t.formatVersion} · <code>{t.location}</code></>}>
        {canRun && t && <Maintenance ident={ident} onDone={() => { void qc.invalidateQueries({ queryKey: ['lake-table', ident] }); void qc.invalidateQueries({ queryKey: ['lake-rows', ident] }); }} />}
      </PageHeader>
      {!q.isSuccess ? (
        <QueryState query={q} card />
      ) : t && (
        <>
          <div className="stats">
            <div className="stat"><span className="stat-value">{count(t.rowsPerPartition.reduce((a, p) => a + p.rows, 0))}</span><span className="stat-label">live rows</span></div>
            <div className="stat"><span className="stat-value">{t.rowsPerPartition.length}</span><span className="stat-label">partitions</span></div>
            <div className="stat"><span className="stat-value">{t.fileCounts.data}</span><span className="stat-label">data files · {bytes(t.fileCounts.bytes)}</span></div>
            <div className="stat"><span className="stat-value">{t.fileCounts.positionDeletes + t.fileCounts.equalityDeletes}</span><span className="stat-label">delete files</span></div>
          </div>
          <div className="grid-2">
            <section className="card card-flush">
              <div className="card-head"><h2>Schema</h2><span className="muted small">partitioned by {t.partitionSpec.map((p) => `${p.transform}(${p.name})`).join(', ') || 'nothing'}</span></div>
              <table className="table" data-testid="lake-schema">
                <thead><tr><th className="right">Id</th><th>Column</th><th>Type</th><th>Nullable</th></tr></thead>
                <tbody>
                  {t.schema.map((f) => (
                    <tr key={f.id}>
                      <td className="num right muted">{f.id}</td>
                      <td className="mono strong">{f.name}{t.identifierFields.includes(f.name) && <>{' '}<span className="badge badge-running" title="identifier (merge key)">key</span></>}</td>
                      <td className="mono">{f.type}</td>
                      <td>{f.required ? 'no' : 'yes'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </section>
            <section className="card card-flush">
              <div className="card-head"><h2>Rows per partition</h2></div>
              {t.rowsPerPartition.length === 0 ? <p className="empty">No live data files.</p> : (
                <table className="table" data-testid="lake-partitions">
                  <thead><tr><th>Partition</th><th className="right">Rows</th><th className="right">Files</th><th className="right">Size</th></tr></thead>
                  <tbody>
                    {t.rowsPerPartition.map((p) => (
                      <tr key={JSON.stringify(p.partition)}>
                        <td className="mono">{partLabel(p.partition)}</td>
                        <td className="num right">{count(p.rows)}{p.equalityDeletes ? <span className="hint" title="equality deletes not subtracted"> ≤</span> : null}</td>
                        <td className="num right">{p.dataFiles}{p.deleteFiles ? <span className="muted"> +{p.deleteFiles} del</span> : null}</td>
                        <td className="num right">{bytes(p.bytes)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </section>
          </div>
          <RowPreview ident={ident} branches={branchesOf(t)} />
          <section className="card" aria-label="Snapshot timeline">
            <h2>Snapshot timeline</h2>
            {t.timeline.length === 0 ? <p className="empty">No snapshots yet.</p> : <SnapshotChart points={t.timeline} />}
          </section>
          <section className="card card-flush">
            <div className="card-head"><h2>Snapshots</h2><span className="muted small">newest first</span></div>
            <div className="table-scroll">
              <table className="table" data-testid="lake-snapshots">
                <thead><tr><th>Snapshot</th><th className="right">Seq</th><th>When</th><th>Operation</th><th className="right">Added</th><th className="right">Deleted</th><th className="right" title="rows a reader sees">Rows</th></tr></thead>
                <tbody>
                  {t.snapshots.map((s) => { const r = snapshotRows(s.summary); return (
                    <tr key={s.id}>
                      <td className="mono small">{s.id}{s.current && <>{' '}<span className="badge badge-succeeded">current</span></>}</td>
                      <td className="num right">{s.sequenceNumber}</td>
                      <td>{formatTime(s.timestamp)}</td>
                      <td>{s.operation}</td>
                      <td className="num right">{count(r.added)}</td>
                      <td className="num right">{count(r.deleted)}</td>
                      <td className="num right" title={r.markedDeleted ? `${count(r.total)} data rows, ${count(r.markedDeleted)} marked deleted` : undefined}>{count(r.live)}{r.exact ? '' : ' +'}</td>
                    </tr>
                  ); })}
                </tbody>
              </table>
            </div>
          </section>
          <DriftHistory table={ident.slice(ident.lastIndexOf('.') + 1)} />
          <section className="card">
            <h2>Properties</h2>
            <dl className="meta props">
              {Object.entries(t.properties).map(([k, v]) => <div key={k}><dt>{k}</dt><dd className="mono small">{v}</dd></div>)}
              <div><dt>metadata</dt><dd className="mono small">{t.metadataLocation}</dd></div>
            </dl>
          </section>
        </>
      )}
    </div>
  );
}
