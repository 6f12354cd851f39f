import type pg from 'pg';
import type { FreshnessAlerts } from '../config/freshness';
import { enqueueJobInTransaction } from '../jobs/enqueue-batch';
import type { JobCatalog } from '../jobs/types';

/**
 * Queue an alert mail (a `mail.send` job to tables.json's `freshness_alerts` recipients) on the
 * transaction that stores the alert state it reports. State and mail commit together, so an
 * alert is mailed exactly once: a check that rolls back queues nothing, and the next check
 * finds the stored state and has no change to mail. Returns the mail's job run id.
 */
export async function enqueueAlertMail(c: pg.PoolClient, catalog: JobCatalog, o: {
  /** job_runs.created_by: the check that alerts (`freshness`, `cdc`). */
  createdBy: string;
  alerts: FreshnessAlerts;
  mail: { subject: string; text: string };
}): Promise<string> {
  const job = await enqueueJobInTransaction(c, catalog, {
    kind: 'mail.send', createdBy: o.createdBy,
    params: { to: o.alerts.recipients, subject: o.mail.subject, text: o.mail.text, ...(o.alerts.smtp_connection ? { connection: o.alerts.smtp_connection } : {}) },
  });
  return job.runId;
}
