'use client';
import Link from 'next/link';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../_components/api-client';
import { QueryState } from '../../_components/query-state';
import { formatTime } from '../../_components/format';

interface Drift { id: number; runId: string; table: string; branch: string; mode: string; at: string; changes: string[] }

/** The job run behind an engine run id (`etl-<job run id>`), when it came from a job. */
const jobOf = (runId: string) => /^(?:etl|dq)-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/.exec(runId)?.[1] ?? null;

/** Schema changes ETL recorded (etl_run_log.schema_discrepancy), newest first; one table's or all. */
export function DriftHistory({ table }: { table?: string }) {
  const q = useQuery({
    queryKey: ['lake-drift', table ?? ''],
    queryFn: () => api<{ drift: Drift[] }>(`/api/v1/lake/drift?limit=100${table ? `&table=${encodeURIComponent(table)}` : ''}`),
    refetchInterval: 15_000,
  });
  const list = q.data?.drift ?? [];
  return (
    <section className="card card-flush" aria-label="Schema drift">
      <div className="card-head"><h2>Schema drift</h2><span className="muted small">recorded by ETL runs, newest first</span></div>
      {!q.isSuccess ? <QueryState query={q} /> : list.length === 0 ? (
        <p className="empty" data-testid="drift-empty">No schema drift recorded.</p>
      ) : (
        <table className="table table-compact" data-testid="drift-table">
          <thead><tr><th>When</th>{!table && <th>Table</th>}<th>Branch</th><th>Change</th><th>Run</th></tr></thead>
          <tbody>
            {list.map((d) => (
              <tr key={d.id}>
                <td>{formatTime(d.at)}</td>
                {!table && <td className="mono">{d.table}</td>}
                <td>{d.branch}</td>
                <td className="small">{d.changes.map((c, i) => <div key={i} className="mono">{c}</div>)}</td>
                <td className="mono small">{d.runId}{jobOf(d.runId) && <> · <Link href={`/runs/${jobOf(d.runId)}`}>log</Link></>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
