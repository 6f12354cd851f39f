import type { Metadata } from 'next';
import { LakeView } from './lake-view';

export const metadata: Metadata = { title: 'Lake' };

export default function Page() {
  return <LakeView />;
}
