import type { Metadata } from 'next';
import Link from 'next/link';
import { TokensSection } from './tokens-section';
import { UsersSection } from './users-section';
import { currentUser } from '../../_server/current-user';
import { PageHeader } from '../../_components/page-header';

export const metadata: Metadata = { title: 'Settings' };

export default async function SettingsPage() {
  const user = await currentUser();
  return (
    <div className="page">
      <PageHeader title="Settings" sub={<>API tokens for automation{user?.role === 'admin' ? ', and the people who use this panel' : ''}.</>} />
      <TokensSection />
      {user?.role === 'admin' && <UsersSection />}
      {user?.role === 'admin' && (
        <section className="card" aria-labelledby="audit-link-title">
          <h2 id="audit-link-title">Audit log</h2>
          <p className="muted">Every change to users, tokens and connections, every job start and cancel, and every failed sign-in, with who and from where.</p>
          <Link className="btn" href="/settings/audit">Open the audit log</Link>
        </section>
      )}
      {user?.role !== 'admin' && <p className="muted small">Users and other settings are managed by an admin.</p>}
    </div>
  );
}
