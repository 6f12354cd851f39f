import type pg from 'pg';
import { enqueueJobInTransaction } from '../pipelines';
import type { JobCatalog } from '../jobs/types';
import { buildAlertMail, type AlertEvent, type AlertFacts } from './alert-mail';
import { alertWebhookFacts } from './alert-webhook';
import type { LogLine, StepNode } from './step-plan';

/** What an alert needs of the flow row. */
export interface AlertFlow {
  id: string;
  name: string;
  recipients: string[];
  webhooks: string[];
  smtpConnection: string | null;
}

/** What an alert needs of the run row. */
export interface AlertRun {
  id: string;
  startedAt: Date | null;
  finishedAt: Date | null;
  scheduledFor: Date | null;
}

/**
 * Queue the alert — one mail.send job for the mail recipients and one
 * webhook.send job per webhook connection — in the run's closing
 * transaction: the run ends and its alerts are queued together, so a failure
 * alerts exactly once however many workers tick. @returns the run-log lines to write
 */
export async function queueAlert(
  client: pg.PoolClient, catalog: JobCatalog, publicUrl: string, flow: AlertFlow, run: AlertRun, nodes: StepNode[], event: AlertEvent, failed: StepNode | null,
): Promise<LogLine[]> {
  const { recipients: to, webhooks: hooks } = flow;
  if (!to.length && !hooks.length) return [{ level: 'warn', message: `no alert recipients or webhooks set: no ${event} alert` }];
  const logs: LogLine[] = [];
  const facts: AlertFacts = {
    event, flowName: flow.name, flowId: flow.id, runId: run.id, publicUrl,
    startedAt: run.startedAt, endedAt: run.finishedAt ?? new Date(), scheduledFor: run.scheduledFor,
    failedNode: failed ? { id: failed.nodeId, label: failed.label, kind: failed.kind, error: failed.error } : null,
    nodes: nodes.map((n) => ({ id: n.nodeId, label: n.label, status: n.status })).sort((a, b) => a.id.localeCompare(b.id)),
  };
  if (to.length) {
    const mail = buildAlertMail(facts);
    const job = await enqueueJobInTransaction(client, catalog, {
      kind: 'mail.send', createdBy: `flow:${flow.name}`,
      params: { to, subject: mail.subject, text: mail.text, html: mail.html, connection: flow.smtpConnection ?? undefined, flowRunId: run.id },
    });
    logs.push({ level: 'info', message: `${event} alert to ${to.join(', ')} queued as mail.send job ${job.runId}` });
  }
  const hookFacts = hooks.length ? alertWebhookFacts(facts) : null;
  for (const connection of hooks) {
    const job = await enqueueJobInTransaction(client, catalog, { kind: 'webhook.send', createdBy: `flow:${flow.name}`, params: { connection, facts: hookFacts, flowRunId: run.id } });
    logs.push({ level: 'info', message: `${event} alert to webhook ${connection} queued as webhook.send job ${job.runId}` });
  }
  return logs;
}
