import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { currentUser } from '../../../_server/current-user';
import { AuditView } from './audit-view';

export const metadata: Metadata = { title: 'Audit log' };

export default async function AuditPage() {
  const user = await currentUser();
  if (user?.role !== 'admin') redirect('/settings');
  return <AuditView />;
}
