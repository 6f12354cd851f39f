import type { Metadata } from 'next';
import { NotBuilt } from '../../_components/not-built';

export const metadata: Metadata = { title: 'Connections' };

export default function Page() {
  return (
    <NotBuilt
      title="Connections"
      summary="Source branches (Oracle, PostgreSQL) and target services Tributary reads from and writes to."
      cli="tributary connections list"
      coming={[
        'The list of connections: kind, branch key, host, last successful test',
        'Add, edit and test a connection (admins); secrets are encrypted at rest and never shown again',
        'Which pipelines and flows use each connection',
      ]}
    />
  );
}
