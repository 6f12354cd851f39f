import type { Metadata } from 'next';
import { PipelinesView } from './pipelines-view';

export const metadata: Metadata = { title: 'Pipelines' };

export default function Page() {
  return <PipelinesView />;
}
