import type { Metadata } from 'next';
import { NotBuilt } from '../../_components/not-built';

export const metadata: Metadata = { title: 'Lake' };

export default function Page() {
  return (
    <NotBuilt
      title="Lake"
      summary="The Apache Iceberg tables in the warehouse and their history."
      cli="tributary lake --help"
      coming={[
        'Namespaces and tables with their row counts, files and sizes',
        'Snapshots, schema versions and partitions (one per branch)',
        'Snapshot expiry and table maintenance',
      ]}
    />
  );
}
