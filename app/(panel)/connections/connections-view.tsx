'use client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../_components/api-client';
import { formatTime, timeAgo } from '../../_components/format';
import { FormError } from '../../_components/form-error';
import { useCan } from '../../_components/user-context';
import { CONNECTION_KIND_SPECS, type ConnectionKind } from '@/lib/api/presenters/connection-kinds';
import { ConnectionForm } from './connection-form';

export interface ConnectionRow {
  id: string; name: string; kind: string; isBranch: boolean; branchKey: string | null;
  /** From the environment (`env:striim`, `env:source`): read-only. */
  builtIn?: boolean;
  params: Record<string, unknown>; secretKeys: string[]; createdAt: string; updatedAt: string;
}

/** Where a connection points, in one short line. */
function target(c: ConnectionRow): string {
  const p = c.params;
  if (p.dsn) return String(p.dsn);
  if (p.node) return String(p.node);
  if (p.host) {
    const tail = p.service_name ? `/${p.service_name}` : p.sid ? ` (SID ${p.sid})` : p.database ? `/${p.database}` : '';
    return `${p.host}${p.port ? `:${p.port}` : ''}${tail}`;
  }
  if (c.secretKeys.includes('url') || c.secretKeys.includes('connection_string')) return '(connection string, stored encrypted)';
  return '—';
}

export function ConnectionsView() {
  const isAdmin = useCan('admin');
  const qc = useQueryClient();
  const [showForm, setShowForm] = useState(false);
  const [created, setCreated] = useState<string | null>(null);
  const list = useQuery({ queryKey: ['connections'], queryFn: () => api<{ connections: ConnectionRow[] }>('/api/v1/connections') });
  const remove = useMutation({
    mutationFn: (id: string) => api(`/api/v1/connections/${encodeURIComponent(id)}`, { method: 'DELETE' }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['connections'] }),
  });
  const rows = list.data?.connections ?? [];

  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1>Connections</h1>
          <p className="page-sub">Source branches (Oracle, PostgreSQL) and the services Tributary talks to. Secrets are encrypted at rest and never shown again.</p>
        </div>
        {isAdmin && (
          <button type="button" className="btn btn-primary" onClick={() => setShowForm((v) => !v)} aria-expanded={showForm}>
            {showForm ? 'Close' : 'Add connection'}
          </button>
        )}
      </header>

      {isAdmin && showForm && (
        <ConnectionForm
          onCreated={(name) => { setCreated(name); setShowForm(false); void qc.invalidateQueries({ queryKey: ['connections'] }); }}
          onCancel={() => setShowForm(false)}
        />
      )}
      {created && (
        <div className="flash" role="status">
          Connection <strong>{created}</strong> saved. Its secrets are stored encrypted and will not be shown again.
          <button type="button" className="flash-close" aria-label="Dismiss" onClick={() => setCreated(null)}>×</button>
        </div>
      )}

      <section className="card card-flush">
        {list.isPending ? (
          <p className="empty">Loading connections…</p>
        ) : list.isError ? (
          <p className="empty error-text">Could not load connections: {(list.error as Error).message}</p>
        ) : rows.length === 0 ? (
          <div className="empty" data-testid="connections-empty">
            <p><strong>No connections yet.</strong></p>
            <p>
              Import your branches from a TOML file with <code>tributary connections import FILE.toml</code>
              {' '}(sections <code>[oracle_branches.&lt;key&gt;]</code> / <code>[postgres_branches.&lt;key&gt;]</code>, <code>{'${ENV}'}</code> for secrets)
              {isAdmin ? <>, or add one here with “Add connection”.</> : <>, or ask an admin to add one here.</>}
            </p>
          </div>
        ) : (
          <table className="table" data-testid="connections-table">
            <thead>
              <tr><th>Name</th><th>Kind</th><th>Branch key</th><th>Where</th><th>User</th><th>Secrets</th><th>Updated</th>{isAdmin && <th />}</tr>
            </thead>
            <tbody>
              {rows.map((c) => (
                <tr key={c.id} data-connection={c.name}>
                  <td className="strong mono">{c.name}{c.builtIn && <> <span className="badge" title="from the environment; change it there">built-in</span></>}</td>
                  <td>{CONNECTION_KIND_SPECS[c.kind as ConnectionKind]?.label ?? c.kind}</td>
                  <td>{c.isBranch ? <span className="badge badge-running">{c.branchKey}</span> : <span className="muted">—</span>}</td>
                  <td className="mono small">{target(c)}</td>
                  <td className="muted">{c.params.user ? String(c.params.user) : c.params.admin_user ? String(c.params.admin_user) : '—'}</td>
                  <td>
                    {c.secretKeys.length === 0 ? <span className="muted">none</span> : c.secretKeys.map((k) => (
                      <span key={k} className="chip" title={c.builtIn ? 'from the environment; never returned' : 'stored encrypted; write-only'}>{k} ••••</span>
                    ))}
                  </td>
                  <td title={formatTime(c.updatedAt)}>{timeAgo(c.updatedAt)}</td>
                  {isAdmin && (
                    <td className="right">
                      {!c.builtIn && <button type="button" className="btn btn-danger btn-small" disabled={remove.isPending}
                        onClick={() => { if (window.confirm(`Delete the connection “${c.name}”? Pipelines using it will stop finding it.`)) remove.mutate(c.id); }}>
                        Delete
                      </button>}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <FormError error={remove.error} />
      <p className="muted small">
        Command line: <code>tributary connections list</code>, <code>tributary connections import FILE.toml</code>. API: <code>GET/POST /api/v1/connections</code>.
      </p>
    </div>
  );
}
