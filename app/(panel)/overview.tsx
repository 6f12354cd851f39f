'use client';
import Link from 'next/link';
import { useQuery } from '@tanstack/react-query';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { api, ACTIVE, type RunView } from '../_components/api-client';
import { timeAgo } from '../_components/format';
import { StatusBadge } from '../_components/status-badge';
import { EngineBadge } from '../_components/engine-badge';
import { useUser } from '../_components/user-context';
import { FreshnessCard } from './freshness-card';
import type { OverviewData } from '@/lib/api/presenters/overview';
import { PageHeader } from '../_components/page-header';

const COLORS = { succeeded: '#12b76a', failed: '#f04438', cancelled: '#f79009', running: '#2e90fa', queued: '#98a2b3' } as const;

const age = (s: number | null) => (s === null ? '—' : s < 60 ? `${Math.round(s)}s` : s < 3600 ? `${Math.floor(s / 60)}m` : s < 86400 ? `${Math.floor(s / 3600)}h` : `${Math.floor(s / 86400)}d`);

/** Runs created per hour over the last 24 h, stacked by status. */
function RunsChart({ data }: { data: OverviewData['runsPerHour'] }) {
  const rows = data.map((h) => ({ ...h, label: new Date(h.hour).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' }) }));
  return (
    <div data-testid="runs-chart" style={{ width: '100%', height: 220 }}>
      <ResponsiveContainer>
        <BarChart data={rows} margin={{ top: 8, right: 16, bottom: 8, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="label" tick={{ fontSize: 11 }} interval={2} />
          <YAxis allowDecimals={false} tick={{ fontSize: 11 }} />
          <Tooltip />
          <Legend />
          {(Object.keys(COLORS) as (keyof typeof COLORS)[]).map((s) => <Bar key={s} dataKey={s} stackId="runs" fill={COLORS[s]} isAnimationActive={false} />)}
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}

export function Overview() {
  const user = useUser();
  const o = useQuery({ queryKey: ['overview'], queryFn: () => api<OverviewData>('/api/v1/overview'), refetchInterval: 5000 });
  const runs = useQuery({ queryKey: ['runs', 'overview'], queryFn: () => api<{ runs: RunView[] }>('/api/v1/jobs?limit=6'), refetchInterval: 3000 });
  const health = useQuery({
    queryKey: ['health'],
    queryFn: () => api<{ status: string; version: string; database: string }>('/api/v1/health'),
    refetchInterval: 10_000,
  });
  const d = o.data;
  const alive = d?.workers.filter((w) => w.alive) ?? [];
  const recent = runs.data?.runs ?? [];

  return (
    <div className="page">
      <PageHeader title="Overview" sub={<>Signed in as <strong>{user.name}</strong> ({user.role}). {health.data ? <>Tributary {health.data.version} · database {health.data.database}</> : null}</>} />

      <div className="stats" data-testid="overview-stats">
        <Link href="/runs" className={`stat ${alive.length ? 'stat-succeeded' : 'stat-failed'}`}>
          <span className="stat-value">{d ? alive.length : '…'}</span><span className="stat-label">workers alive</span>
        </Link>
        <Link href="/runs?status=queued" className="stat stat-queued">
          <span className="stat-value">{d ? d.queue.queued : '…'}</span>
          <span className="stat-label">queued{d?.queue.oldestQueuedSeconds ? ` · oldest ${age(d.queue.oldestQueuedSeconds)}` : ''}</span>
        </Link>
        <Link href="/runs?status=running" className="stat stat-running"><span className="stat-value">{d ? d.queue.running : '…'}</span><span className="stat-label">running</span></Link>
        <Link href="/runs?status=failed" className="stat stat-failed"><span className="stat-value">{d ? d.runs24h.failed : '…'}</span><span className="stat-label">failed in 24 h</span></Link>
      </div>

      <section className="card" aria-label="Runs per hour">
        <h2>Runs per hour, last 24 h</h2>
        {d ? <RunsChart data={d.runsPerHour} /> : <p className="empty">Loading…</p>}
      </section>

      <div className="grid-2">
        <section className="card card-flush" aria-label="Workers">
          <div className="card-head"><h2>Workers</h2><span className="muted small">heartbeat age</span></div>
          {!d ? <p className="empty">Loading…</p> : d.workers.length === 0 ? (
            <p className="empty" data-testid="no-workers">No worker has reported. Start one with <code>tributary worker</code> (<code>npm start</code> runs one).</p>
          ) : (
            <table className="table table-compact" data-testid="workers-table">
              <thead><tr><th>Worker</th><th>State</th><th className="right">Heartbeat</th><th className="right">Running</th></tr></thead>
              <tbody>
                {d.workers.map((w) => (
                  <tr key={w.id}>
                    <td className="mono small">{w.id}</td>
                    <td><span className={`badge badge-${w.alive ? 'succeeded' : 'failed'}`}>{w.alive ? 'alive' : 'silent'}</span></td>
                    <td className="num right">{age(w.ageSeconds)} ago</td>
                    <td className="num right">{w.running}{w.concurrency ? ` / ${w.concurrency}` : ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
        <section className="card card-flush" aria-label="Failing units">
          <div className="card-head"><h2>Failing units</h2><Link href="/pipelines">Pipelines →</Link></div>
          {!d ? <p className="empty">Loading…</p> : d.failingUnits.length === 0 ? <p className="empty" data-testid="no-failing-units">Every loaded table × branch last succeeded.</p> : (
            <table className="table table-compact" data-testid="failing-units">
              <thead><tr><th>Table</th><th>Branch</th><th>Status</th><th>When</th></tr></thead>
              <tbody>
                {d.failingUnits.map((u) => (
                  <tr key={`${u.table}|${u.branch}`} title={u.error ?? undefined}>
                    <td className="mono">{u.table}</td><td>{u.branch}</td><td><EngineBadge status={u.status} title={u.error ?? undefined} /></td><td>{timeAgo(u.at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
      </div>

      <div className="grid-2">
        <section className="card" aria-label="Lake freshness">
          <div className="card-head" style={{ padding: 0, border: 0 }}><h2>Lake freshness</h2><Link href="/lake">Lake →</Link></div>
          {!d ? <p className="empty">Loading…</p> : d.freshness.units === 0 ? <p className="muted">No ETL loads recorded yet.</p> : (
            <dl className="meta" data-testid="freshness-summary">
              <div><dt>table × branch units</dt><dd>{d.freshness.units}</dd></div>
              <div><dt>loaded within 24 h</dt><dd>{d.freshness.units - d.freshness.stale - d.freshness.neverLoaded}</dd></div>
              <div><dt>older than 24 h</dt><dd className={d.freshness.stale ? 'error-text strong' : ''}>{d.freshness.stale}</dd></div>
              <div><dt>never loaded</dt><dd>{d.freshness.neverLoaded}</dd></div>
              <div><dt>oldest load</dt><dd>{age(d.freshness.oldestAgeSeconds)} ago</dd></div>
              <div><dt>newest load</dt><dd>{timeAgo(d.freshness.newestLoadAt)}</dd></div>
            </dl>
          )}
        </section>
        <section className="card" aria-label="Data quality">
          <div className="card-head" style={{ padding: 0, border: 0 }}><h2>Data quality</h2><Link href="/data-quality">Data quality →</Link></div>
          {!d ? <p className="empty">Loading…</p> : (
            <>
              {d.dq.pairs === 0 ? <p className="muted">No checks have written results yet.</p> : (
                <dl className="meta" data-testid="dq-summary">
                  <div><dt>pairs checked</dt><dd>{d.dq.pairs}</dd></div>
                  <div><dt>OK</dt><dd>{d.dq.OK}</dd></div>
                  <div><dt>mismatch</dt><dd className={d.dq.MISMATCH ? 'error-text strong' : ''}>{d.dq.MISMATCH}</dd></div>
                  <div><dt>error</dt><dd className={d.dq.ERROR ? 'error-text strong' : ''}>{d.dq.ERROR}</dd></div>
                  <div><dt>last check</dt><dd>{timeAgo(d.dq.lastCheckedAt)}</dd></div>
                </dl>
              )}
              {d.dq.lastRun?.failed && <p className="error-text small">The last check failed: {d.dq.lastRun.error} (<Link href={`/runs/${d.dq.lastRun.id}`}>log</Link>)</p>}
            </>
          )}
        </section>
      </div>

      <FreshnessCard />

      <section className="card card-flush">
        <div className="card-head"><h2>Recent runs</h2><Link href="/runs">All runs →</Link></div>
        {recent.length === 0 ? (
          <p className="empty">{runs.isPending ? 'Loading…' : 'No runs yet.'}</p>
        ) : (
          <ul className="recent">
            {recent.map((r) => (
              <li key={r.id}>
                <StatusBadge status={r.status} />
                <Link href={`/runs/${r.id}`} className="mono">{r.kind}</Link>
                <span className="muted">{ACTIVE.includes(r.status) && r.progress.total ? `${r.progress.done}/${r.progress.total} · ` : ''}{timeAgo(r.createdAt)}</span>
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}
