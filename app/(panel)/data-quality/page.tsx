import type { Metadata } from 'next';
import { NotBuilt } from '../../_components/not-built';

export const metadata: Metadata = { title: 'Data quality' };

export default function Page() {
  return (
    <NotBuilt
      title="Data quality"
      summary="The reconciler: row counts and row hashes compared between branches and the lake."
      cli="tributary dq run --help"
      coming={[
        'Latest reconciliation result per table × branch: counts and hash mismatches',
        'Drill-down into differing keys',
        'History of results and a button to reconcile now',
      ]}
    />
  );
}
