import type { Metadata } from 'next';
import { LakeTableView } from './lake-table-view';

export const metadata: Metadata = { title: 'Lake table' };

export default async function Page({ params }: { params: Promise<{ ident: string }> }) {
  const { ident } = await params;
  return <LakeTableView ident={decodeURIComponent(ident)} />;
}
