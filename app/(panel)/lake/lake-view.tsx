'use client';
import Link from 'next/link';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../_components/api-client';
import { count, formatTime, timeAgo } from '../../_components/format';
import type { LakeTableSummary } from '@/lib/api/presenters/lake';
import { DriftHistory } from './drift-history';
import { FreshnessMap } from './freshness-map';
import { QueryTable } from '../../_components/query-table';
import { PageHeader } from '../../_components/page-header';

export function LakeView() {
  const list = useQuery({
    queryKey: ['lake-tables'],
    queryFn: () => api<{ warehouse: string; tables: LakeTableSummary[] }>('/api/v1/lake/tables'),
    refetchInterval: 10_000,
  });
  const tables = list.data?.tables ?? [];

  return (
    <div className="page">
      <PageHeader title="Lake"
        sub={<>
          <span>
            Iceberg v2 tables in the SQL catalog, readable by ClickHouse, pyiceberg, Spark and Trino.
            {list.data ? <> Warehouse <code>{list.data.warehouse}</code></> : null}
          </span>
        </>} />
      <section className="card card-flush">
        <QueryTable query={list} loading="Loading tables…" failure="Could not list the lake" isEmpty={() => tables.length === 0} testId="lake-tables"
          empty={<div className="empty" data-testid="lake-empty">
            <p><strong>The lake has no tables yet.</strong></p>
            <p>
              Tables appear after the first load: run an INITIAL load from <Link href="/pipelines">Pipelines</Link>, or import files with
              {' '}<code>tributary lake import NS.TABLE FILE.parquet --mode append</code>.
            </p>
          </div>}
          head={() => <tr><th>Table</th><th>Partitioned by</th><th className="right" title="rows a reader sees (data rows minus rows marked deleted by delete files)">Rows</th><th className="right" title="rows marked deleted by delete files, until compaction rewrites them">Marked deleted</th><th className="right">Snapshots</th><th>Current snapshot</th><th>Updated</th></tr>}>
          {() => tables.map((t) => (
                <tr key={t.ident}>
                  <td>
                    <Link href={`/lake/${encodeURIComponent(t.ident)}`} className="mono strong">{t.ident}</Link>
                    {t.error && <div className="cell-error" title={t.error}>{t.error}</div>}
                  </td>
                  <td className="mono small">{t.partitionBy.join(', ') || <span className="muted">none</span>}</td>
                  <td className="num right" data-testid="lake-live-rows">{count(t.liveRecords)}</td>
                  <td className="num right muted">{t.deletedRecords ? count(t.deletedRecords) : '—'}</td>
                  <td className="num right">{t.snapshotCount}</td>
                  <td className="mono small muted">{t.currentSnapshotId ?? 'none'}</td>
                  <td title={formatTime(t.lastUpdated)}>{timeAgo(t.lastUpdated)}</td>
                </tr>
              ))}
        </QueryTable>
      </section>
      <FreshnessMap />
      <DriftHistory />
      <p className="muted small">Command line: <code>tributary lake list</code>, <code>tributary lake describe NS.TABLE</code>, <code>tributary lake scan NS.TABLE --limit 20</code>.</p>
    </div>
  );
}
