import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { currentUser, needsSetup } from '../_server/current-user';
import { LoginForm } from './login-form';
import { safeCallbackUrl } from './callback-url';

export const metadata: Metadata = { title: 'Sign in' };
export const dynamic = 'force-dynamic';

export default async function LoginPage({ searchParams }: { searchParams: Promise<{ callbackUrl?: string | string[] }> }) {
  if (await needsSetup()) redirect('/setup');
  // Only same-site paths: never bounce a signed-in user to another origin.
  const next = safeCallbackUrl((await searchParams).callbackUrl);
  if (await currentUser()) redirect(next);
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
