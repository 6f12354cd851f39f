import type { ReactNode } from 'react';
import { redirect } from 'next/navigation';
import { currentUser, needsSetup } from '../_server/current-user';
import { Sidebar } from '../_components/sidebar';
import { UserProvider } from '../_components/user-context';

// Every panel page depends on who is signed in.
export const dynamic = 'force-dynamic';

export default async function PanelLayout({ children }: { children: ReactNode }) {
  const user = await currentUser();
  if (!user) redirect((await needsSetup()) ? '/setup' : '/login');
  return (
    <UserProvider user={{ id: user.id, name: user.name, role: user.role }}>
      <div className="shell">
        <Sidebar />
        <main className="main">{children}</main>
      </div>
    </UserProvider>
  );
}
