import type { Metadata } from 'next';
import { SliceBoard } from './slice-board';

export const metadata: Metadata = { title: 'Slice run' };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <SliceBoard id={id} />;
}
