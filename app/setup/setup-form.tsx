'use client';
import { signIn } from 'next-auth/react';
import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { api, ApiError } from '../_components/api-client';

export function SetupForm() {
  const router = useRouter();
  const [error, setError] = useState<{ message: string; field?: string } | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const name = String(f.get('name') ?? '');
    const password = String(f.get('password') ?? '');
    if (password !== String(f.get('confirm') ?? '')) { setError({ message: 'The two passwords differ.', field: 'confirm' }); return; }
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
        <span>Password (at least 8 characters)</span>
        <input name="password" type="password" autoComplete="new-password" minLength={8} required aria-invalid={error?.field === 'password'} />
      </label>
      <label className="field">
        <span>Repeat the password</span>
        <input name="confirm" type="password" autoComplete="new-password" minLength={8} required aria-invalid={error?.field === 'confirm'} />
      </label>
      {error && <p className="form-error" role="alert">{error.message}</p>}
      <button type="submit" className="btn btn-primary btn-block" disabled={busy}>{busy ? 'Creating…' : 'Create admin and sign in'}</button>
    </form>
  );
}
