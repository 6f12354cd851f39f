'use client';
import { signIn } from 'next-auth/react';
import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { api, ApiError } from '../_components/api-client';
import { PasswordRules, passwordOk } from './password-rules';

export function SetupForm() {
  const router = useRouter();
  const [error, setError] = useState<{ message: string; field?: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const name = String(f.get('name') ?? '');
    if (!passwordOk(password)) { setError({ message: 'The password does not meet the rules shown below it.', field: 'password' }); return; }
    if (password !== confirm) { setError({ message: 'The two passwords differ.', field: 'confirm' }); return; }
    setBusy(true);
    setError(null);
    try {
      await api('/api/v1/setup', { method: 'POST', body: { name, password } });
      await signIn('credentials', { username: name, password, redirect: false });
      router.replace('/');
      router.refresh();
    } catch (err) {
      setBusy(false);
      if (err instanceof ApiError && err.status === 409) { router.replace('/login'); return; }
      setError({ message: (err as Error).message, field: (err as ApiError).field });
    }
  }

  return (
    <form onSubmit={submit} className="form">
      <label className="field">
        <span>Admin user name</span>
        <input name="name" autoComplete="username" required autoFocus aria-invalid={error?.field === 'name'} />
      </label>
      <label className="field">
        <span>Password</span>
        <input name="password" type="password" autoComplete="new-password" required value={password} onChange={(e) => setPassword(e.target.value)}
          aria-describedby="setup-password-rules" aria-invalid={error?.field === 'password' || (password !== '' && !passwordOk(password))} />
      </label>
      <PasswordRules password={password} id="setup-password-rules" />
      <label className="field">
        <span>Repeat the password</span>
        <input name="confirm" type="password" autoComplete="new-password" required value={confirm} onChange={(e) => setConfirm(e.target.value)}
          aria-invalid={error?.field === 'confirm' || (confirm !== '' && confirm !== password)} />
      </label>
      {confirm !== '' && confirm !== password && <p className="field-help" role="status">The two passwords differ.</p>}
      {error && <p className="form-error" role="alert">{error.message}</p>}
      <button type="submit" className="btn btn-primary btn-block" disabled={busy}>{busy ? 'Creating…' : 'Create admin and sign in'}</button>
    </form>
  );
}
