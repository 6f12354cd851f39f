import type { Metadata } from 'next';
import { FlowEditor } from '../flow-editor';
import { FlowRuns } from '../flow-runs';
import { PageHeader } from '../../../_components/page-header';

export const metadata: Metadata = { title: 'Flow' };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <div className="page">
      <PageHeader title="Flow" sub="Edit the graph, schedule and alerts; every save is validated as a whole." />
      <FlowEditor flowId={id} />
      <FlowRuns flowId={id} />
    </div>
  );
}
