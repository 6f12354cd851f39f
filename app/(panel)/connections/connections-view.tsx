'use client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { Fragment, useState } from 'react';
import { api, ApiError } from '../../_components/api-client';
import { startJob } from '../../_components/start-job';
import { formatTime, timeAgo } from '../../_components/format';
import { FormError } from '../../_components/form-error';
import { useCan } from '../../_components/user-context';
import { CONNECTION_KIND_SPECS, type ConnectionKind } from '@/lib/api/presenters/connection-kinds';
import { ConnectionForm } from './connection-form';
import { useRunOutcome } from './use-run-outcome';
import { ConnectionsImport } from './connections-import';
import { TestMail } from './test-mail';
import { QueryTable } from '../../_components/query-table';
import { PageHeader } from '../../_components/page-header';

/** What `connections.test` reports (lib/connections/test-connection.ts). */
interface TestResult {
  reachable: boolean; serverVersion: string | null; latencyMs: number | null; error: string | null;
  tables?: { table: string; source: string; exists: boolean; error?: string }[]; checkedAt: string;
}

/** The outcome of one Test run, shown under its connection once the job ends. */
function TestOutcome({ runId, onClose }: { runId: string; onClose(): void }) {
  const q = useRunOutcome(runId);
  const run = q.data;
  const r = (run?.result ?? null) as TestResult | null;
  return (
    <div className="test-outcome" data-testid="test-outcome" role="status">
      {!run || run.status === 'queued' || run.status === 'running' ? (
        <p className="muted">Testing… (<Link href={`/runs/${runId}`}>run</Link>)</p>
      ) : r ? (
        <>
          <p>
            <span className={`badge badge-${r.reachable ? 'succeeded' : 'failed'}`} data-reachable={String(r.reachable)}>{r.reachable ? 'reachable' : 'unreachable'}</span>
            {r.latencyMs !== null && <> · <strong>{r.latencyMs} ms</strong> round trip</>}
            {r.serverVersion && <> · <span className="mono small" data-testid="server-version">{r.serverVersion.split('\n')[0]}</span></>}
            {' '}· <Link href={`/runs/${runId}`}>run</Link>
          </p>
          {r.error && <p className="error-text small">{r.error}</p>}
          {r.tables && (
            <p className="small">
              Tables of tables.json: {r.tables.filter((t) => t.exists).length} of {r.tables.length} present
              {r.tables.map((t) => (
                <span key={t.table} className={`chip${t.exists ? '' : ' error-text'}`} title={t.error ?? t.source}>{t.exists ? '✓' : '✗'} {t.table}</span>
              ))}
            </p>
          )}
        </>
      ) : (
        <p className="error-text">{run.error ?? `test ${run.status}`}</p>
      )}
      <button type="button" className="btn btn-ghost btn-small" onClick={onClose}>Dismiss</button>
    </div>
  );
}

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
  const canTest = useCan('operator');
  const qc = useQueryClient();
  const [showForm, setShowForm] = useState(false);
  const [showImport, setShowImport] = useState(false);
  const [editing, setEditing] = useState<ConnectionRow | null>(null);
  const [tests, setTests] = useState<Record<string, string>>({});
  const [testError, setTestError] = useState<unknown>(null);
  /** The SMTP connection whose test-mail form is open. */
  const [mailing, setMailing] = useState<string | null>(null);
  const test = async (name: string) => {
    setTestError(null);
    try { const id = await startJob('connections.test', { name }); setTests((t) => ({ ...t, [name]: id })); } catch (e) { setTestError(e); }
  };
  const [created, setCreated] = useState<string | null>(null);
  const list = useQuery({ queryKey: ['connections'], queryFn: () => api<{ connections: ConnectionRow[] }>('/api/v1/connections') });
  const remove = useMutation({
    mutationFn: (id: string) => api(`/api/v1/connections/${encodeURIComponent(id)}`, { method: 'DELETE' }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['connections'] }),
  });
  const rows = list.data?.connections ?? [];

  return (
    <div className="page">
      <PageHeader title="Connections" sub="Source branches (Oracle, PostgreSQL) and the services Tributary talks to. Secrets are encrypted at rest and never shown again.">
        <div className="form-actions">
          <a className="btn btn-ghost" href="/api/v1/connections/export.toml" download="connections.toml">Export TOML</a>
          {isAdmin && (
            <button type="button" className="btn btn-ghost" onClick={() => setShowImport((v) => !v)} aria-expanded={showImport}>
              {showImport ? 'Close import' : 'Import TOML'}
            </button>
          )}
          {isAdmin && (
            <button type="button" className="btn btn-primary" onClick={() => { setEditing(null); setShowForm((v) => !v); }} aria-expanded={showForm}>
              {showForm ? 'Close' : 'Add connection'}
            </button>
          )}
        </div>
      </PageHeader>
      {isAdmin && showImport && (
        <ConnectionsImport onDone={(n) => { setShowImport(false); setCreated(`${n} branch${n === 1 ? '' : 'es'} imported`); void qc.invalidateQueries({ queryKey: ['connections'] }); }} onCancel={() => setShowImport(false)} />
      )}
      {isAdmin && editing && (
        <ConnectionForm
          key={editing.id}
          initial={editing}
          onCreated={(name) => { setCreated(name); setEditing(null); void qc.invalidateQueries({ queryKey: ['connections'] }); }}
          onCancel={() => setEditing(null)}
        />
      )}

      {isAdmin && showForm && (
        <ConnectionForm
          onCreated={(name) => { setCreated(name); setShowForm(false); void qc.invalidateQueries({ queryKey: ['connections'] }); }}
          onCancel={() => setShowForm(false)}
        />
      )}
      {created && (
        <div className="flash" role="status">
          {created.endsWith('imported') ? created : <>Connection <strong>{created}</strong> saved. Its secrets are stored encrypted and will not be shown again.</>}
          <button type="button" className="flash-close" aria-label="Dismiss" onClick={() => setCreated(null)}>×</button>
        </div>
      )}

      <section className="card card-flush">
        <QueryTable query={list} loading="Loading connections…" failure="Could not load connections" isEmpty={() => rows.length === 0} testId="connections-table"
          empty={<div className="empty" data-testid="connections-empty">
            <p><strong>No connections yet.</strong></p>
            <p>
              Import your branches from a TOML file with <code>tributary connections import FILE.toml</code>
              {' '}(sections <code>[oracle_branches.&lt;key&gt;]</code> / <code>[postgres_branches.&lt;key&gt;]</code>, <code>{'${ENV}'}</code> for secrets)
              {isAdmin ? <>, or add one here with “Add connection”.</> : <>, or ask an admin to add one here.</>}
            </p>
          </div>}
          head={() => <tr><th>Name</th><th>Kind</th><th>Branch key</th><th>Where</th><th>User</th><th>Secrets</th><th>Updated</th>{canTest && <th />}</tr>}>
          {() => rows.map((c) => (
                <Fragment key={c.id}>
                <tr data-connection={c.name}>
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
                  {canTest && (
                    <td className="right nowrap">
                      {c.kind !== 'other' && <button type="button" className="btn btn-ghost btn-small" onClick={() => void test(c.name)}>Test</button>}
                      {isAdmin && c.kind === 'smtp' && (
                        <button type="button" className="btn btn-ghost btn-small" aria-expanded={mailing === c.id} onClick={() => setMailing((m) => (m === c.id ? null : c.id))}>
                          Send test mail
                        </button>
                      )}
                      {isAdmin && !c.builtIn && <button type="button" className="btn btn-ghost btn-small" onClick={() => { setShowForm(false); setEditing(c); }}>Edit</button>}
                      {isAdmin && !c.builtIn && <button type="button" className="btn btn-danger btn-small" disabled={remove.isPending}
                        onClick={() => { if (window.confirm(`Delete the connection “${c.name}”? Pipelines or flows that use it block the delete.`)) remove.mutate(c.id); }}>
                        Delete
                      </button>}
                    </td>
                  )}
                </tr>
                {isAdmin && mailing === c.id && (
                  <tr className="detail-row"><td colSpan={8}>
                    <TestMail connection={c} onClose={() => setMailing(null)} />
                  </td></tr>
                )}
                {tests[c.name] && (
                  <tr className="detail-row"><td colSpan={8}>
                    <TestOutcome key={tests[c.name]} runId={tests[c.name]} onClose={() => setTests(({ [c.name]: _gone, ...rest }) => rest)} />
                  </td></tr>
                )}
                </Fragment>
              ))}
        </QueryTable>
      </section>
      <FormError error={remove.error} />
      <FormError error={testError instanceof ApiError && testError.field === 'params.name' ? new Error(testError.message.replace(/^params\.name: /, '')) : testError} />
      <p className="muted small">
        Command line: <code>tributary connections list</code>, <code>tributary connections import FILE.toml</code>. API: <code>GET/POST /api/v1/connections</code>, <code>GET /api/v1/connections/export.toml</code>, <code>POST /api/v1/connections/import</code>.
      </p>
    </div>
  );
}
