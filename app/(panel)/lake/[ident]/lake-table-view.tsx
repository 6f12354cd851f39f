'use client';
import Link from 'next/link';
import { useQuery } from '@tanstack/react-query';
import { api, ApiError } from '../../../_components/api-client';
import { bytes, count, formatTime } from '../../../_components/format';
import type { LakeTableDetail } from '@/lib/api/presenters/lake';

const partLabel = (p: Record<string, unknown>) => Object.entries(p).map(([k, v]) => `${k}=${v === null ? 'null' : String(v)}`).join(', ') || '(unpartitioned)';

export function LakeTableView({ ident }: { ident: string }) {
  const q = useQuery({
    queryKey: ['lake-table', ident],
    queryFn: () => api<LakeTableDetail>(`/api/v1/lake/tables/${encodeURIComponent(ident)}`),
    refetchInterval: 10_000,
    retry: (n, e) => !(e instanceof ApiError && e.status === 404) && n < 1,
  });
  const t = q.data;

  return (
    <div className="page">
      <p className="crumbs"><Link href="/lake">Lake</Link> /</p>
      <header className="page-header">
        <div>
          <h1 className="mono">{ident}</h1>
          {t && <p className="page-sub">Iceberg v{t.formatVersion} · <code>{t.location}</code></p>}
        </div>
      </header>
      {q.isPending ? (
        <section className="card"><p className="empty">Loading…</p></section>
      ) : q.isError ? (
        <section className="card"><p className="empty error-text">{(q.error as Error).message}</p></section>
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
          <section className="card card-flush">
            <div className="card-head"><h2>Snapshots</h2><span className="muted small">newest first</span></div>
            <div className="table-scroll">
              <table className="table" data-testid="lake-snapshots">
                <thead><tr><th>Snapshot</th><th className="right">Seq</th><th>When</th><th>Operation</th><th className="right">Added</th><th className="right">Deleted</th><th className="right">Total records</th></tr></thead>
                <tbody>
                  {t.snapshots.map((s) => (
                    <tr key={s.id}>
                      <td className="mono small">{s.id}{s.current && <>{' '}<span className="badge badge-succeeded">current</span></>}</td>
                      <td className="num right">{s.sequenceNumber}</td>
                      <td>{formatTime(s.timestamp)}</td>
                      <td>{s.operation}</td>
                      <td className="num right">{count(s.summary['added-records'])}</td>
                      <td className="num right">{count(s.summary['deleted-records'])}</td>
                      <td className="num right">{count(s.summary['total-records'])}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </section>
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
