import type { Metadata } from 'next';
import { DqView } from './dq-view';

export const metadata: Metadata = { title: 'Data quality' };

export default function Page() {
  return <DqView />;
}
