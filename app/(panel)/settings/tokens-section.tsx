'use client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../_components/api-client';
import { formatTime, timeAgo } from '../../_components/format';
import { useUser } from '../../_components/user-context';

interface Token { id: string; name: string; prefix: string; role: string; userName: string; createdAt: string; lastUsedAt: string | null }

/** Create (shown once) and revoke API tokens; a token acts with its creator's role. */
export function TokensSection() {
  const user = useUser();
  const qc = useQueryClient();
  const tokens = useQuery({ queryKey: ['tokens'], queryFn: () => api<{ tokens: Token[] }>('/api/v1/tokens') });
  const [name, setName] = useState('');
  const [fresh, setFresh] = useState<{ name: string; token: string } | null>(null);
  const [copied, setCopied] = useState(false);
  const create = useMutation({
    mutationFn: (n: string) => api<Token & { token: string }>('/api/v1/tokens', { method: 'POST', body: { name: n } }),
    onSuccess: (t) => { setFresh({ name: t.name, token: t.token }); setCopied(false); setName(''); void qc.invalidateQueries({ queryKey: ['tokens'] }); },
  });
  const revoke = useMutation({
    mutationFn: (id: string) => api(`/api/v1/tokens/${id}`, { method: 'DELETE' }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['tokens'] }),
  });

  function submit(e: FormEvent) {
    e.preventDefault();
    if (name.trim()) create.mutate(name.trim());
  }

  async function copy() {
    if (!fresh) return;
    try { await navigator.clipboard.writeText(fresh.token); setCopied(true); } catch { /* the token stays visible to copy by hand */ }
  }

  const list = tokens.data?.tokens ?? [];
  return (
    <section className="card" aria-labelledby="tokens-title">
      <h2 id="tokens-title">API tokens</h2>
      <p className="muted">
        Use a token as <code>Authorization: Bearer trb_…</code> on <code>/api/v1</code>. A token acts with the role of the user who created it
        (yours: <strong>{user.role}</strong>). Only a hash is stored: the token is shown once.
      </p>
      <form className="form-inline" onSubmit={submit}>
        <label className="field">
          <span>Token name</span>
          <input name="token-name" value={name} onChange={(e) => setName(e.target.value)} placeholder="e.g. ci-pipeline" maxLength={100} />
        </label>
        <button type="submit" className="btn btn-primary" disabled={create.isPending || !name.trim()}>Create token</button>
      </form>
      {create.isError && <p className="form-error" role="alert">{(create.error as Error).message}</p>}
      {fresh && (
        <div className="secret-box" role="status" data-testid="new-token">
          <div><strong>{fresh.name}</strong> — copy it now, it will not be shown again.</div>
          <div className="secret-row">
            <code className="secret" data-testid="new-token-value">{fresh.token}</code>
            <button type="button" className="btn btn-small" onClick={copy}>{copied ? 'Copied' : 'Copy'}</button>
            <button type="button" className="btn btn-ghost btn-small" onClick={() => setFresh(null)}>Done</button>
          </div>
        </div>
      )}
      {list.length === 0 ? (
        <p className="empty">{tokens.isPending ? 'Loading…' : 'No active tokens.'}</p>
      ) : (
        <table className="table" data-testid="tokens-table">
          <thead><tr><th>Name</th><th>Token</th><th>Role</th>{user.role === 'admin' && <th>User</th>}<th>Created</th><th>Last used</th><th /></tr></thead>
          <tbody>
            {list.map((t) => (
              <tr key={t.id}>
                <td className="strong">{t.name}</td>
                <td className="mono muted">{t.prefix}…</td>
                <td>{t.role}</td>
                {user.role === 'admin' && <td>{t.userName}</td>}
                <td title={formatTime(t.createdAt)}>{timeAgo(t.createdAt)}</td>
                <td>{t.lastUsedAt ? timeAgo(t.lastUsedAt) : 'never'}</td>
                <td className="right">
                  <button type="button" className="btn btn-danger btn-small" disabled={revoke.isPending}
                    onClick={() => { if (window.confirm(`Revoke the token “${t.name}”? Programs using it will get 401.`)) revoke.mutate(t.id); }}>
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {revoke.isError && <p className="form-error" role="alert">{(revoke.error as Error).message}</p>}
    </section>
  );
}
