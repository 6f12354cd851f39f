import { AppError } from '../errors';
import { getConnectionWithSecrets, listConnections, type ConnectionsContext } from '../connections';
import { smtpSettingsFrom, type SmtpSettings } from './smtp-options';

/**
 * The SMTP settings to send with: the named connection, or when none is
 * named the first `smtp` connection by name.
 */
export async function resolveSmtp(ctx: ConnectionsContext, name?: string | null): Promise<SmtpSettings & { connection: string }> {
  let target = name ?? null;
  if (!target) {
    const all = await listConnections(ctx, { kind: 'smtp' });
    if (!all.length) throw new AppError('validation', 'mail: no smtp connection exists — add one under Connections', { field: 'connection' });
    target = all[0].name;
  }
  const c = await getConnectionWithSecrets(ctx, target);
  if (!c) throw new AppError('not_found', `mail: no connection '${target}'`, { field: 'connection' });
  if (c.kind !== 'smtp') throw new AppError('validation', `mail: connection '${target}' is a ${c.kind} connection, not smtp`, { field: 'connection' });
  return { ...smtpSettingsFrom(c.params, c.secrets, c.name), connection: c.name };
}
