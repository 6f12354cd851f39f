import { z } from 'zod';
import { defineJob, type JobContext } from '../jobs/types';

const email = z.string().trim().email('not an e-mail address');
const idOrName = (what: string) => z.string().min(1).max(200).describe(`The ${what} to run: its id or name.`);

/** Payload of `mail.send`: one message through an smtp connection; `flowRunId` logs its tries on that flow run. */
export const MailSendPayload = z.strictObject({
  to: z.array(email).min(1).max(50).describe('Recipients, 1–50 e-mail addresses.'),
  subject: z.string().min(1).max(500).describe('Subject line.'),
  text: z.string().max(200_000).describe('Plain-text body.'),
  html: z.string().max(500_000).optional().describe('HTML body, shown by mail clients that support it. (Default: text only)'),
  connection: z.string().min(1).max(100).optional().describe('smtp connection name. (Default: the first smtp connection)'),
  flowRunId: z.string().uuid().optional().describe('Flow run whose log records the tries. (Default: none)'),
  attempts: z.number().int().min(1).max(20).default(5).describe('Tries in all. (Default: 5)'),
  backoffMs: z.number().int().min(0).max(600_000).default(2000).describe('First wait between tries, doubled after each. (Default: 2000 ms)'),
});

const iso = z.string().max(40).nullable();
/** The facts of one flow alert (see alert-webhook.ts), as the executor queues them. */
const AlertWebhookFactsSchema = z.strictObject({
  event: z.enum(['failure', 'success', 'long_running']),
  text: z.string().min(1).max(4000),
  flow: z.strictObject({ id: z.string().max(100), name: z.string().max(200) }),
  run: z.strictObject({ id: z.string().max(100), url: z.string().max(2000), scheduledFor: iso, startedAt: iso, endedAt: z.string().max(40), durationMs: z.number().int().min(0).nullable() }),
  failedNode: z.strictObject({ id: z.string().max(100), label: z.string().max(200).nullable(), kind: z.string().max(100), error: z.string().max(5000).nullable() }).nullable(),
  nodes: z.array(z.strictObject({ id: z.string().max(100), label: z.string().max(200).nullable(), status: z.string().max(40) })).max(200),
});

/** Payload of `webhook.send`: one alert to a `webhook` connection (its URL and keys stay in the connection). */
export const WebhookSendPayload = z.strictObject({
  connection: z.string().min(1).max(100).describe('webhook connection name.'),
  facts: AlertWebhookFactsSchema.describe('The alert facts sent as the JSON body (event, text, flow, run, failed node, nodes).'),
  flowRunId: z.string().uuid().optional().describe('Flow run whose log records the tries. (Default: none)'),
  attempts: z.number().int().min(1).max(20).default(5).describe('Tries in all. (Default: 5)'),
  backoffMs: z.number().int().min(0).max(600_000).default(2000).describe('First wait between tries, doubled after each. (Default: 2000 ms)'),
});

type Note = (level: 'info' | 'warn' | 'error', m: string) => Promise<void>;

/**
 * One alert's delivery (a mail or a webhook post, each retried by its sender), told on the flow
 * run it belongs to (none outside a flow): each failed try, the outcome, and a delivery that fails
 * in the end, before the job fails with it. Notes are best effort: the job's own log has them too.
 */
async function deliverAlert<T>(ctx: JobContext, flowRunId: string | undefined, what: 'mail' | 'webhook',
  deliver: (note: Note, retrying: (via: string) => (n: number, err: Error, wait: number) => Promise<void>) => Promise<T>): Promise<T> {
  const { logFlowRun } = await import('./run-log');
  const note: Note = async (level, m) => {
    if (flowRunId) await logFlowRun(ctx.pool, flowRunId, level, m).catch(() => {});
  };
  const retrying = (via: string) => async (n: number, err: Error, wait: number) => {
    ctx.logger.warn(`${what} try ${n} failed, retrying in ${wait} ms: ${err.message}`);
    await note('warn', `alert ${what} try ${n} via ${via} failed: ${err.message}; retrying in ${Math.round(wait / 100) / 10} s`);
  };
  try {
    return await deliver(note, retrying);
  } catch (e) {
    await note('error', `alert ${what} not ${what === 'mail' ? 'sent' : 'delivered'}: ${(e as Error).message}`);
    throw e;
  }
}

/** The keys that open stored connections' secrets. */
const keysOf = (ctx: JobContext) => ({ secret: ctx.env.TRIBUTARY_SECRET, dataDir: ctx.env.dataDir });

export const flowsJobs = [
  defineJob({
    kind: 'flows.run',
    description: 'Start a run of a flow now (the executor then runs its nodes as jobs)',
    role: 'operator',
    payload: z.strictObject({ flow: idOrName('flow') }),
    async run(ctx, p) {
      const { startFlowRun } = await import('./runs');
      const run = await startFlowRun(ctx.pool, p.flow, `job:${ctx.runId}`);
      ctx.logger.info('flow run queued', { flowRunId: run.id, flow: run.flowName });
      return { flowRunId: run.id, flow: run.flowName };
    },
  }),
  defineJob({
    kind: 'pipelines.run',
    description: 'Run a saved pipeline of the library (by name or id)',
    role: 'operator',
    payload: z.strictObject({ pipeline: idOrName('pipeline') }),
    async run(ctx, p) {
      const { runPipeline } = await import('../pipelines');
      const r = await runPipeline(ctx.pool, ctx, p.pipeline, `job:${ctx.runId}`);
      ctx.logger.info('pipeline job queued', { jobRunId: r.runId, pipeline: r.pipeline.name });
      return { jobRunId: r.runId, pipeline: r.pipeline.name };
    },
  }),
  defineJob({
    kind: 'mail.send',
    description: 'Send one mail through an SMTP connection, retrying with backoff (flow, freshness and CDC lag alerts)',
    role: 'admin',
    payload: MailSendPayload,
    async run(ctx, p) {
      const { resolveSmtp, sendMail } = await import('../mail');
      return deliverAlert(ctx, p.flowRunId, 'mail', async (note, retrying) => {
        const smtp = await resolveSmtp({ pool: ctx.pool, keys: keysOf(ctx) }, p.connection);
        const sent = await sendMail(smtp, p, { attempts: p.attempts, backoffMs: p.backoffMs, signal: ctx.signal, onRetry: retrying(smtp.connection) });
        ctx.logger.info('mail sent', { to: p.to.join(', '), attempts: sent.attempts, messageId: sent.messageId });
        await note('info', `alert mail sent to ${p.to.join(', ')} via ${smtp.connection} (try ${sent.attempts})`);
        return { messageId: sent.messageId, attempts: sent.attempts, accepted: sent.accepted, connection: smtp.connection };
      });
    },
  }),
  defineJob({
    kind: 'mail.test',
    description: 'Send a test mail through an SMTP connection',
    role: 'admin',
    payload: z.strictObject({
      connection: z.string().min(1).max(100).describe('smtp connection to test.'),
      to: email.describe('Address the test message is sent to.'),
    }),
    async run(ctx, p) {
      const { resolveSmtp, sendMail } = await import('../mail');
      const smtp = await resolveSmtp({ pool: ctx.pool, keys: keysOf(ctx) }, p.connection);
      const sent = await sendMail(smtp, {
        to: [p.to], subject: '[tributary] test mail',
        text: `This is a test mail from Tributary, sent through the connection '${smtp.connection}' (${smtp.host}:${smtp.port ?? 'default port'}, TLS ${smtp.tls}).`,
        html: `<p>This is a test mail from Tributary, sent through the connection <strong>${smtp.connection.replace(/[<>&]/g, '')}</strong>.</p>`,
      }, { attempts: 1, signal: ctx.signal });
      ctx.logger.info('test mail sent', { to: p.to, messageId: sent.messageId });
      return { messageId: sent.messageId, accepted: sent.accepted, connection: smtp.connection };
    },
  }),
  defineJob({
    kind: 'webhook.send',
    description: 'Post one flow alert to a webhook connection (Slack, Teams, PagerDuty or any HTTP receiver), retrying with backoff',
    role: 'admin',
    payload: WebhookSendPayload,
    async run(ctx, p) {
      const { resolveWebhook, sendWebhook } = await import('../webhook');
      const { alertWebhookBody } = await import('./alert-webhook');
      return deliverAlert(ctx, p.flowRunId, 'webhook', async (note, retrying) => {
        const hook = await resolveWebhook({ pool: ctx.pool, keys: keysOf(ctx) }, p.connection);
        const onRetry = retrying(hook.connection);
        const sent = await sendWebhook(hook, alertWebhookBody(p.facts, hook.format, hook.routingKey), {
          attempts: p.attempts, backoffMs: p.backoffMs, signal: ctx.signal,
          // the webhook sender does not wait for its onRetry: the note is not awaited either
          onRetry: (n, err, wait) => void onRetry(n, err, wait),
        });
        ctx.logger.info('webhook delivered', { connection: hook.connection, status: sent.status, attempts: sent.attempts });
        await note('info', `alert webhook delivered via ${hook.connection} (HTTP ${sent.status}, try ${sent.attempts})`);
        return { connection: hook.connection, status: sent.status, attempts: sent.attempts, format: hook.format };
      });
    },
  }),
];
