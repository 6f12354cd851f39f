import type { Metadata } from 'next';
import { FlowsList } from './flows-list';

export const metadata: Metadata = { title: 'Flows' };

export default function Page() {
  return <FlowsList />;
}
