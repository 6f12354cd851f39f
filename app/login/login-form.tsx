'use client';
import { signIn } from 'next-auth/react';
import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';

// The throttle's 429 names the wait in its error (`TooManyAttempts:<seconds>`), as Retry-After does:
// signIn() hands the page that error, not the headers.
function lockedMessage(error: string | null | undefined): string {
  const secs = Number((error ?? '').split(':')[1]);
  const wait = !Number.isFinite(secs) || secs <= 0 ? 'later' : secs < 90 ? `in ${Math.ceil(secs)} seconds` : `in ${Math.ceil(secs / 60)} minutes`;
  return `Too many failed sign-ins. Try again ${wait}.`;
}

export function LoginForm({ next }: { next: string }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setBusy(true);
    setError(null);
    const r = await signIn('credentials', { username: String(form.get('username') ?? ''), password: String(form.get('password') ?? ''), redirect: false });
    if (!r || r.error) {
      setBusy(false);
      setError(r?.status === 429 || r?.error?.startsWith('TooManyAttempts') ? lockedMessage(r?.error) : 'Wrong user name or password.');
      return;
    }
    router.replace(next);
    router.refresh();
  }

  return (
    <form onSubmit={submit} className="form">
      <label className="field">
        <span>User name</span>
        <input name="username" autoComplete="username" required autoFocus />
      </label>
      <label className="field">
        <span>Password</span>
        <input name="password" type="password" autoComplete="current-password" required />
      </label>
      {error && <p className="form-error" role="alert">{error}</p>}
      <button type="submit" className="btn btn-primary btn-block" disabled={busy}>{busy ? 'Signing in…' : 'Sign in'}</button>
    </form>
  );
}
