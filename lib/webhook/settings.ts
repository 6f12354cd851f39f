import { AppError } from '../errors';

/** Body formats a webhook connection can send. */
export const WEBHOOK_FORMATS = ['json', 'pagerduty'] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

/** Where and how to post, from a `webhook` connection. */
export interface WebhookSettings {
  connection: string;
  /** The endpoint. Kept in the connection's secrets: a Slack or Teams webhook URL is itself a credential. */
  url: string;
  /**
   * json: Tributary's facts plus a `text` line (what Slack and Teams incoming webhooks show);
   * pagerduty: an Events API v2 `trigger` (or `resolve` on success). (Default: json)
   */
  format: WebhookFormat;
  /** HMAC-SHA256 key: each post carries `X-Tributary-Signature`. (Default: unsigned) */
  secret: string | null;
  /** PagerDuty integration key (format pagerduty). */
  routingKey: string | null;
}

export function webhookSettingsFrom(params: Record<string, unknown>, secrets: Record<string, string>, name: string): WebhookSettings {
  const url = secrets.url ?? '';
  if (!/^https?:\/\/[^/\s]+/i.test(url)) throw new AppError('validation', `webhook: connection '${name}' needs url (http:// or https://) in its secrets`, { field: 'secrets.url' });
  const format = (params.format ?? 'json') as WebhookFormat;
  if (!WEBHOOK_FORMATS.includes(format)) throw new AppError('validation', `webhook: connection '${name}': format must be one of ${WEBHOOK_FORMATS.join(', ')}`, { field: 'params.format' });
  const routingKey = secrets.routing_key || null;
  if (format === 'pagerduty' && !routingKey) throw new AppError('validation', `webhook: connection '${name}': format pagerduty needs routing_key in its secrets`, { field: 'secrets.routing_key' });
  return { connection: name, url, format, secret: secrets.secret || null, routingKey };
}
