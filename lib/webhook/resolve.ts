import { AppError } from '../errors';
import { getConnectionWithSecrets, type ConnectionsContext } from '../connections';
import { webhookSettingsFrom, type WebhookSettings } from './settings';

/** The settings of the named `webhook` connection (its URL and keys decrypted). */
export async function resolveWebhook(ctx: ConnectionsContext, name: string): Promise<WebhookSettings> {
  const c = await getConnectionWithSecrets(ctx, name);
  if (!c) throw new AppError('not_found', `webhook: no connection '${name}'`, { field: 'connection' });
  if (c.kind !== 'webhook') throw new AppError('validation', `webhook: connection '${name}' is a ${c.kind} connection, not webhook`, { field: 'connection' });
  return webhookSettingsFrom(c.params, c.secrets, c.name);
}
