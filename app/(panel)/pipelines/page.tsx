import type { Metadata } from 'next';
import { NotBuilt } from '../../_components/not-built';

export const metadata: Metadata = { title: 'Pipelines' };

export default function Page() {
  return (
    <NotBuilt
      title="Pipelines"
      summary="Multi-branch extract/load pipelines from the branch databases into the Iceberg lake."
      cli="tributary etl run --help"
      coming={[
        'Every table of tables.json with its load mode (full, CDC, query) and write strategy',
        'Per table × branch: last run, rows, watermark and schema drift',
        'Start a load for one table, one branch or everything',
      ]}
    />
  );
}
