import type { Metadata } from 'next';
import { SliceRunsView } from './slice-runs-view';

export const metadata: Metadata = { title: 'Slices' };

export default function Page() {
  return <SliceRunsView />;
}
