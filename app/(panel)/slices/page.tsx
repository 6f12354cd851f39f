import type { Metadata } from 'next';
import { NotBuilt } from '../../_components/not-built';

export const metadata: Metadata = { title: 'Slices' };

export default function Page() {
  return (
    <NotBuilt
      title="Slices"
      summary="Huge initial loads split into disjoint slices, run in parallel (Striim or native engine)."
      cli="tributary slices --help"
      coming={[
        'The live status board: slices queued, running, done and failed, with rows and speed',
        'Split strategies and probe results',
        'Reset, resume and reconcile a slice run',
      ]}
    />
  );
}
