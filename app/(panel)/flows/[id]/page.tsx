import type { Metadata } from 'next';
import { FlowEditor } from '../flow-editor';
import { FlowRuns } from '../flow-runs';

export const metadata: Metadata = { title: 'Flow' };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <div className="page">
      <header className="page-header"><div><h1>Flow</h1><p className="page-sub">Edit the graph, schedule and alerts; every save is validated as a whole.</p></div></header>
      <FlowEditor flowId={id} />
      <FlowRuns flowId={id} />
    </div>
  );
}
