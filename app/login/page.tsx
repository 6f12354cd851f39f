import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { currentUser, needsSetup } from '../_server/current-user';
import { LoginForm } from './login-form';
import { safeCallbackUrl } from './callback-url';
import { DatabaseUnavailable } from '../_components/database-unavailable';
import { DATABASE_DOWN, unlessDatabaseDown } from '../_server/unless-database-down';

export const metadata: Metadata = { title: 'Sign in' };
export const dynamic = 'force-dynamic';

export default async function LoginPage({ searchParams }: { searchParams: Promise<{ callbackUrl?: string | string[] }> }) {
  const state = await unlessDatabaseDown(async () => ({ setup: await needsSetup(), user: await currentUser() }));
  if (state === DATABASE_DOWN) return <DatabaseUnavailable />;
  if (state.setup) redirect('/setup');
  // Only same-site paths: never bounce a signed-in user to another origin.
  const next = safeCallbackUrl((await searchParams).callbackUrl);
  if (state.user) redirect(next);
  return (
    <div className="auth-page">
      <div className="auth-card">
        <div className="auth-brand">Tributary</div>
        <h1>Sign in</h1>
        <LoginForm next={next} />
      </div>
    </div>
  );
}
