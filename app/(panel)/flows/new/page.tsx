import type { Metadata } from 'next';
import { FlowEditor } from '../flow-editor';

export const metadata: Metadata = { title: 'New flow' };

export default function Page() {
  return (
    <div className="page">
      <header className="page-header"><div><h1>New flow</h1><p className="page-sub">Add nodes from the pipeline library or inline jobs, connect them, set a schedule and alerts.</p></div></header>
      <FlowEditor />
    </div>
  );
}
