'use client';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../_components/api-client';
import { formatTime } from '../../_components/format';
import { QueryTable } from '../../_components/query-table';
import type { FreshnessCell } from '@/lib/api/presenters/lake';

/** Age as a short text: 42s, 5m, 3h, 2d. */
export function ageText(s: number | null): string {
  if (s === null) return 'never';
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

/** Heat colour of a load's age: green within the hour, through amber, to red after a day; failures red, never loaded grey. */
function heat(c: FreshnessCell | undefined): { background: string; color: string } {
  if (!c) return { background: 'transparent', color: 'inherit' };
  if (c.status && c.status !== 'SUCCESS') return { background: '#fee4e2', color: '#b42318' };
  if (c.ageSeconds === null) return { background: '#f2f4f7', color: '#475467' };
  const steps: [number, string][] = [[3600, '#d1fadf'], [6 * 3600, '#a6f4c5'], [24 * 3600, '#fef0c7'], [3 * 86400, '#fedf89'], [Infinity, '#fecdca']];
  return { background: steps.find(([max]) => c.ageSeconds! <= max)![1], color: '#101828' };
}

/** Freshness per table × branch (last load, watermark, age) as a heat map. */
export function FreshnessMap() {
  const q = useQuery({
    queryKey: ['lake-freshness'],
    queryFn: () => api<{ cells: FreshnessCell[]; tables: string[]; branches: string[] }>('/api/v1/lake/freshness'),
    refetchInterval: 10_000,
  });
  const d = q.data;
  return (
    <section className="card card-flush" aria-label="Freshness">
      <div className="card-head"><h2>Freshness</h2><span className="muted small">age of the last successful load per table × branch</span></div>
      <QueryTable query={q} isEmpty={() => !d || d.cells.length === 0} compact testId="freshness-map"
        empty={<p className="empty" data-testid="freshness-empty">No ETL loads recorded yet.</p>}
        head={() => d && <tr><th>Table</th>{d.branches.map((b) => <th key={b} className="center">{b}</th>)}</tr>}>
        {() => d && d.tables.map((t) => (
                <tr key={t}>
                  <td className="mono strong">{t}</td>
                  {d.branches.map((b) => {
                    const c = d.cells.find((x) => x.table === t && x.branch === b);
                    const title = c ? [`status ${c.status ?? '—'}`, `last load ${formatTime(c.lastSuccessAt)}`, `last run ${formatTime(c.lastRunFinishedAt)}`,
                      `watermark ${c.watermark ?? c.watermarkDate ?? '—'}`, c.error ? `error: ${c.error}` : ''].filter(Boolean).join('\n') : 'not loaded for this branch';
                    return (
                      <td key={b} className="center small" style={{ ...heat(c), textAlign: 'center' }} title={title} data-cell={`${t}|${b}`}>
                        {c ? <><strong>{c.status && c.status !== 'SUCCESS' ? c.status : ageText(c.ageSeconds)}</strong><div className="mono" style={{ fontSize: 10 }}>{c.watermark ?? c.watermarkDate ?? ''}</div></> : '—'}
                      </td>
                    );
                  })}
                </tr>
              ))}
      </QueryTable>
    </section>
  );
}
