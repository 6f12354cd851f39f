import type { Metadata } from 'next';
import { NotBuilt } from '../../_components/not-built';

export const metadata: Metadata = { title: 'Flows' };

export default function Page() {
  return (
    <NotBuilt
      title="Flows"
      summary="Scheduled DAGs of jobs, with cron schedules, time zones and email alerts."
      cli="tributary flows list"
      coming={[
        'Flow graphs drawn as DAGs with the state of each step',
        'Cron schedule, time zone and alert recipients of each flow',
        'Flow run history and a button to run a flow now',
      ]}
    />
  );
}
