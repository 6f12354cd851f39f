import type { Metadata } from 'next';
import { NotBuilt } from '../../_components/not-built';

export const metadata: Metadata = { title: 'Models' };

export default function Page() {
  return (
    <NotBuilt
      title="Models"
      summary="SQL models over the lake, materialised in ClickHouse."
      cli="tributary models --help"
      coming={[
        'The model graph (refs) with the last build and tests of each model',
        'Run, test or build a model or a selection',
        'Model SQL and compiled SQL side by side',
      ]}
    />
  );
}
