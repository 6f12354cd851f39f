'use client';
import Link from 'next/link';
import { useQuery } from '@tanstack/react-query';
import { api, ACTIVE, type RunStatus, type RunView } from '../_components/api-client';
import { timeAgo } from '../_components/format';
import { StatusBadge } from '../_components/status-badge';
import { useUser } from '../_components/user-context';

const AREAS: { href: string; label: string; text: string; built: boolean }[] = [
  { href: '/runs', label: 'Runs', text: 'Jobs run by the workers, live, with their logs.', built: true },
  { href: '/settings', label: 'Settings', text: 'API tokens and users.', built: true },
  { href: '/connections', label: 'Connections', text: 'Branch databases and services.', built: true },
  { href: '/pipelines', label: 'Pipelines', text: 'Multi-branch loads into the lake.', built: true },
  { href: '/flows', label: 'Flows', text: 'Scheduled DAGs with alerts.', built: false },
  { href: '/lake', label: 'Lake', text: 'Iceberg tables and snapshots.', built: true },
  { href: '/data-quality', label: 'Data quality', text: 'Counts and hashes reconciled.', built: true },
  { href: '/slices', label: 'Slices', text: 'Parallel initial loads.', built: true },
  { href: '/models', label: 'Models', text: 'SQL models in ClickHouse.', built: false },
];

export function Overview() {
  const user = useUser();
  const runs = useQuery({
    queryKey: ['runs', 'overview'],
    queryFn: () => api<{ runs: RunView[] }>('/api/v1/jobs?limit=200'),
    refetchInterval: 3000,
  });
  const health = useQuery({
    queryKey: ['health'],
    queryFn: () => api<{ status: string; version: string; database: string }>('/api/v1/health'),
    refetchInterval: 10_000,
  });
  const list = runs.data?.runs ?? [];
  const count = (s: RunStatus) => list.filter((r) => r.status === s).length;
  const recent = list.slice(0, 6);

  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1>Overview</h1>
          <p className="page-sub">Signed in as <strong>{user.name}</strong> ({user.role}). {health.data ? <>Tributary {health.data.version} · database {health.data.database}</> : null}</p>
        </div>
      </header>

      <div className="stats">
        {(['running', 'queued', 'succeeded', 'failed'] as RunStatus[]).map((s) => (
          <Link key={s} href="/runs" className={`stat stat-${s}`}>
            <span className="stat-value">{runs.isPending ? '…' : count(s)}</span>
            <span className="stat-label">{s}</span>
          </Link>
        ))}
      </div>
      {!runs.isPending && <p className="muted small">Counts over the latest {list.length} run{list.length === 1 ? '' : 's'}.</p>}

      <div className="grid-2">
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
        <section className="card card-flush">
          <div className="card-head"><h2>Areas</h2></div>
          <ul className="areas">
            {AREAS.map((a) => (
              <li key={a.href}>
                <Link href={a.href} className="strong">{a.label}</Link>
                <span className="muted">{a.text}</span>
                {!a.built && <span className="badge badge-muted">not built yet</span>}
              </li>
            ))}
          </ul>
        </section>
      </div>
    </div>
  );
}
