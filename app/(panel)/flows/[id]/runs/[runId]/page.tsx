import type { Metadata } from 'next';
import { FlowRunView } from '../../../flow-run-view';

export const metadata: Metadata = { title: 'Flow run' };

export default async function Page({ params }: { params: Promise<{ id: string; runId: string }> }) {
  const { id, runId } = await params;
  return <FlowRunView flowId={id} runId={runId} />;
}
