import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { needsSetup } from '../_server/current-user';
import { SetupForm } from './setup-form';
import { DatabaseUnavailable } from '../_components/database-unavailable';
import { DATABASE_DOWN, unlessDatabaseDown } from '../_server/unless-database-down';

export const metadata: Metadata = { title: 'First run' };
export const dynamic = 'force-dynamic';

/** First-run page: exists only while no user does. */
export default async function SetupPage() {
  const setup = await unlessDatabaseDown(needsSetup);
  if (setup === DATABASE_DOWN) return <DatabaseUnavailable />;
  if (!setup) redirect('/login');
  return (
    <div className="auth-page">
      <div className="auth-card">
        <div className="auth-brand">Tributary</div>
        <h1>Create the first admin</h1>
        <p className="muted">No user exists yet. The account you create here can add operators and viewers under Settings. This page disappears once it exists.</p>
        <SetupForm />
      </div>
    </div>
  );
}
