'use client';
import { useQuery } from '@tanstack/react-query';
import { api } from '../_components/api-client';
import { timeAgo } from '../_components/format';
import type { FreshnessReport } from '@/lib/freshness';

const BADGE = { error: 'failed', warn: 'cancelled', unknown: 'queued', pass: 'succeeded' } as const;

/** A lag or threshold, short: 45m, 3h, 2d. */
const span = (s: number | null) => (s === null ? '—' : s < 3600 ? `${Math.max(1, Math.round(s / 60))}m` : s < 86_400 ? `${Math.floor(s / 3600)}h` : `${Math.floor(s / 86_400)}d`);

/** The Overview's Freshness card: assets past their warn_after / error_after (GET /api/v1/freshness), breaches only. */
export function FreshnessCard() {
  const q = useQuery({ queryKey: ['freshness'], queryFn: () => api<FreshnessReport>('/api/v1/freshness'), refetchInterval: 15_000 });
  const r = q.data;
  const breaches = r?.assets.filter((a) => a.status === 'warn' || a.status === 'error') ?? [];
  return (
    <section className="card card-flush" aria-label="Freshness">
      <div className="card-head">
        <h2>Freshness</h2>
        {r ? <span className="muted small" data-testid="freshness-counts">{r.assets.length} with an expectation · {r.counts.pass} pass · {r.counts.warn} warn · {r.counts.error} error · {r.counts.unknown} unknown</span> : null}
      </div>
      {q.isError ? <p className="empty error-text">{(q.error as Error).message}</p>
        : !r ? <p className="empty">Loading…</p>
        : r.assets.length === 0 ? <p className="empty">No freshness expectations: add <code>freshness</code> to tables.json or a schema.yml (see the README).</p>
        : breaches.length === 0 ? <p className="empty" data-testid="no-freshness-breaches">Every asset is within its freshness expectation.</p>
        : (
          <table className="table table-compact" data-testid="freshness-breaches">
            <thead><tr><th>Asset</th><th>Status</th><th className="right">Lag</th><th className="right">Warn / error after</th><th>Stalest branch</th><th>Since</th></tr></thead>
            <tbody>
              {breaches.map((a) => (
                <tr key={a.asset}>
                  <td className="mono">{a.asset}</td>
                  <td><span className={`badge badge-${BADGE[a.status]}`}>{a.status}</span></td>
                  <td className="num right">{span(a.lagSeconds)}</td>
                  <td className="num right">{span(a.warnAfterSeconds)} / {span(a.errorAfterSeconds)}</td>
                  <td>{a.worstBranch ?? '—'}</td>
                  <td>{a.statusSince ? timeAgo(a.statusSince) : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
    </section>
  );
}
