import type { ReactNode } from 'react';
import { redirect } from 'next/navigation';
import { currentUser, needsSetup } from '../_server/current-user';
import { Sidebar } from '../_components/sidebar';
import { UserProvider } from '../_components/user-context';
import { DatabaseUnavailable } from '../_components/database-unavailable';
import { DATABASE_DOWN, unlessDatabaseDown } from '../_server/unless-database-down';

// Every panel page depends on who is signed in.
export const dynamic = 'force-dynamic';

export default async function PanelLayout({ children }: { children: ReactNode }) {
  const user = await unlessDatabaseDown(currentUser);
  if (user === DATABASE_DOWN) return <DatabaseUnavailable />;
  if (!user) {
    const setup = await unlessDatabaseDown(needsSetup);
    if (setup === DATABASE_DOWN) return <DatabaseUnavailable />;
    redirect(setup ? '/setup' : '/login');
  }
  return (
    <UserProvider user={{ id: user.id, name: user.name, role: user.role }}>
      <div className="shell">
        <Sidebar />
        <main className="main">{children}</main>
      </div>
    </UserProvider>
  );
}
