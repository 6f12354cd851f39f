import type { Metadata } from 'next';
import { FlowEditor } from '../flow-editor';
import { PageHeader } from '../../../_components/page-header';

export const metadata: Metadata = { title: 'New flow' };

export default function Page() {
  return (
    <div className="page">
      <PageHeader title="New flow" sub="Add nodes from the pipeline library or inline jobs, connect them, set a schedule and alerts." />
      <FlowEditor />
    </div>
  );
}
