'use client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, ApiError } from '../../_components/api-client';
import { formatTime } from '../../_components/format';
import { useUser } from '../../_components/user-context';
import { PasswordRules, passwordOk } from '../../setup/password-rules';

interface User { id: string; name: string; role: 'admin' | 'operator' | 'viewer'; createdAt: string }
const ROLES = ['viewer', 'operator', 'admin'] as const;

/** Users and roles (admins only): viewers read, operators run jobs, admins also change connections, users and settings. */
export function UsersSection() {
  const me = useUser();
  const qc = useQueryClient();
  const users = useQuery({ queryKey: ['users'], queryFn: () => api<{ users: User[] }>('/api/v1/users') });
  const [form, setForm] = useState({ name: '', password: '', role: 'viewer' as User['role'] });
  const refresh = () => qc.invalidateQueries({ queryKey: ['users'] });
  const create = useMutation({
    mutationFn: () => api<User>('/api/v1/users', { method: 'POST', body: form }),
    onSuccess: () => { setForm({ name: '', password: '', role: 'viewer' }); void refresh(); },
  });
  const change = useMutation({
    mutationFn: (v: { id: string; role: User['role'] }) => api(`/api/v1/users/${v.id}`, { method: 'PATCH', body: { role: v.role } }),
    onSettled: refresh,
  });
  const remove = useMutation({ mutationFn: (id: string) => api(`/api/v1/users/${id}`, { method: 'DELETE' }), onSuccess: refresh });
  const [ended, setEnded] = useState<string | null>(null);
  const endSessions = useMutation({
    mutationFn: (u: User) => api(`/api/v1/users/${u.id}/sessions`, { method: 'DELETE' }).then(() => u.name),
    onSuccess: (name) => setEnded(name),
  });

  function submit(e: FormEvent) { e.preventDefault(); create.mutate(); }
  const err = (create.error ?? change.error ?? remove.error ?? endSessions.error) as ApiError | null;

  return (
    <section className="card" aria-labelledby="users-title">
      <h2 id="users-title">Users</h2>
      <p className="muted">Viewers read; operators also start and cancel jobs; admins also manage connections, users and settings.</p>
      <form className="form-inline" onSubmit={submit}>
        <label className="field"><span>Name</span>
          <input name="user-name" value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} required aria-invalid={err?.field === 'name'} />
        </label>
        <label className="field"><span>Password</span>
          <input name="user-password" type="password" autoComplete="new-password" value={form.password} onChange={(e) => setForm({ ...form, password: e.target.value })} required
            aria-describedby="user-password-rules" aria-invalid={err?.field === 'password' || (form.password !== '' && !passwordOk(form.password))} />
        </label>
        <PasswordRules password={form.password} id="user-password-rules" />
        <label className="field"><span>Role</span>
          <select name="user-role" value={form.role} onChange={(e) => setForm({ ...form, role: e.target.value as User['role'] })}>
            {ROLES.map((r) => <option key={r} value={r}>{r}</option>)}
          </select>
        </label>
        <button type="submit" className="btn btn-primary" disabled={create.isPending || !passwordOk(form.password)}
          title={passwordOk(form.password) ? undefined : 'The password does not meet the rules shown beside it'}>Add user</button>
      </form>
      {err && <p className="form-error" role="alert">{err.message}</p>}
      {ended && <p className="muted" role="status">Every panel session of {ended} has ended; they must sign in again.</p>}
      <table className="table" data-testid="users-table">
        <thead><tr><th>Name</th><th>Role</th><th>Created</th><th /></tr></thead>
        <tbody>
          {(users.data?.users ?? []).map((u) => (
            <tr key={u.id}>
              <td className="strong">{u.name}{u.id === me.id && <span className="muted"> (you)</span>}</td>
              <td>
                <select aria-label={`Role of ${u.name}`} value={u.role} disabled={u.id === me.id || change.isPending}
                  onChange={(e) => change.mutate({ id: u.id, role: e.target.value as User['role'] })}>
                  {ROLES.map((r) => <option key={r} value={r}>{r}</option>)}
                </select>
              </td>
              <td>{formatTime(u.createdAt)}</td>
              <td className="right">
                {u.id !== me.id && (
                  <button type="button" className="btn btn-ghost btn-small" disabled={endSessions.isPending}
                    title="Sign this user out everywhere (their API tokens keep working: revoke those below)"
                    onClick={() => { if (window.confirm(`End every panel session of ${u.name}?`)) endSessions.mutate(u); }}>End sessions</button>
                )}{' '}
                {u.id !== me.id && (
                  <button type="button" className="btn btn-danger btn-small" disabled={remove.isPending}
                    onClick={() => { if (window.confirm(`Delete ${u.name} and their API tokens?`)) remove.mutate(u.id); }}>Delete</button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
