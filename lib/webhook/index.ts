// Outgoing webhooks (alerts to Slack, Teams, PagerDuty or any HTTP receiver):
// settings from a `webhook` connection, HMAC signing, a sender that retries with backoff.
export { sendWebhook, type WebhookSendOptions, type WebhookSendResult } from './send';
export { webhookSettingsFrom, WEBHOOK_FORMATS, type WebhookFormat, type WebhookSettings } from './settings';
export { signatureHeaders, verifySignature } from './sign';
export { resolveWebhook } from './resolve';
