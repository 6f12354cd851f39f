import { z } from 'zod';
import { defineJob, type JobContext } from '../jobs/types';

const email = z.string().trim().email('not an e-mail address');

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

/** A line on the flow run an alert belongs to (none outside a flow); best effort: the job's own log has it too. */
async function flowRunNote(pool: JobContext['pool'], flowRunId: string | undefined) {
  const { logFlowRun } = await import('./run-log');
  return async (level: 'info' | 'warn' | 'error', m: string) => {
    if (flowRunId) await logFlowRun(pool, flowRunId, level, m).catch(() => {});
  };
}

export const flowsJobs = [
  defineJob({
    kind: 'flows.run',
    description: 'Start a run of a flow now (the executor then runs its nodes as jobs)',
    role: 'operator',
    payload: z.strictObject({ flow: z.string().min(1).max(200).describe('The flow to run: its id or name.') }),
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
    payload: z.strictObject({ pipeline: z.string().min(1).max(200).describe('The pipeline to run: its id or name.') }),
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
      const note = await flowRunNote(ctx.pool, p.flowRunId);
      try {
        const smtp = await resolveSmtp({ pool: ctx.pool, keys: { secret: ctx.env.TRIBUTARY_SECRET, dataDir: ctx.env.dataDir } }, p.connection);
        const sent = await sendMail(smtp, p, {
          attempts: p.attempts, backoffMs: p.backoffMs, signal: ctx.signal,
          onRetry: async (n, err, wait) => {
            ctx.logger.warn(`mail try ${n} failed, retrying in ${wait} ms: ${err.message}`);
            await note('warn', `alert mail try ${n} via ${smtp.connection} failed: ${err.message}; retrying in ${Math.round(wait / 100) / 10} s`);
          },
        });
        ctx.logger.info('mail sent', { to: p.to.join(', '), attempts: sent.attempts, messageId: sent.messageId });
        await note('info', `alert mail sent to ${p.to.join(', ')} via ${smtp.connection} (try ${sent.attempts})`);
        return { messageId: sent.messageId, attempts: sent.attempts, accepted: sent.accepted, connection: smtp.connection };
      } catch (e) {
        await note('error', `alert mail not sent: ${(e as Error).message}`);
        throw e;
      }
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
      const smtp = await resolveSmtp({ pool: ctx.pool, keys: { secret: ctx.env.TRIBUTARY_SECRET, dataDir: ctx.env.dataDir } }, p.connection);
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
      const note = await flowRunNote(ctx.pool, p.flowRunId);
      try {
        const hook = await resolveWebhook({ pool: ctx.pool, keys: { secret: ctx.env.TRIBUTARY_SECRET, dataDir: ctx.env.dataDir } }, p.connection);
        const sent = await sendWebhook(hook, alertWebhookBody(p.facts, hook.format, hook.routingKey), {
          attempts: p.attempts, backoffMs: p.backoffMs, signal: ctx.signal,
          onRetry: (n, err, wait) => {
            ctx.logger.warn(`webhook try ${n} failed, retrying in ${wait} ms: ${err.message}`);
            void note('warn', `alert webhook try ${n} via ${hook.connection} failed: ${err.message}; retrying in ${Math.round(wait / 100) / 10} s`);
          },
        });
        ctx.logger.info('webhook delivered', { connection: hook.connection, status: sent.status, attempts: sent.attempts });
        await note('info', `alert webhook delivered via ${hook.connection} (HTTP ${sent.status}, try ${sent.attempts})`);
        return { connection: hook.connection, status: sent.status, attempts: sent.attempts, format: hook.format };
      } catch (e) {
        await note('error', `alert webhook not delivered: ${(e as Error).message}`);
        throw e;
      }
    },
  }),
];
