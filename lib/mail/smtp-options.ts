import type SMTPTransport from 'nodemailer/lib/smtp-transport';
import { AppError } from '../errors';

/** What an `smtp` connection holds (params + its write-only password). */
export interface SmtpSettings {
  host: string;
  /** (Default: 587 for starttls and none, 465 for tls) */
  port?: number;
  /** none, starttls or tls. (Default: starttls) */
  tls?: 'none' | 'starttls' | 'tls';
  user?: string;
  password?: string;
  from: string;
}

/**
 * SMTP settings from a connection's params and secrets. `secure: true` (the
 * older boolean form) reads as tls mode `tls`.
 */
export function smtpSettingsFrom(params: Record<string, unknown>, secrets: Record<string, string>, name = 'smtp'): SmtpSettings {
  const host = params.host;
  if (typeof host !== 'string' || !host) throw new AppError('validation', `mail: connection '${name}' has no host`, { field: 'params.host' });
  const from = params.from;
  if (typeof from !== 'string' || !from) throw new AppError('validation', `mail: connection '${name}' has no from address`, { field: 'params.from' });
  const tls = (params.tls as string | undefined) ?? (params.secure === true ? 'tls' : 'starttls');
  if (!['none', 'starttls', 'tls'].includes(tls)) throw new AppError('validation', `mail: connection '${name}': tls must be none, starttls or tls`, { field: 'params.tls' });
  return {
    host, from, tls: tls as SmtpSettings['tls'],
    port: typeof params.port === 'number' ? params.port : params.port ? Number(params.port) : undefined,
    user: typeof params.user === 'string' && params.user ? params.user : undefined,
    password: secrets.password || undefined,
  };
}

/**
 * nodemailer transport options for the settings. `none` never upgrades (even
 * when the server offers STARTTLS), `starttls` refuses to send unencrypted,
 * `tls` speaks TLS from the first byte (SMTPS).
 */
export function transportOptions(s: SmtpSettings, opts: { timeoutMs?: number } = {}): SMTPTransport.Options {
  const mode = s.tls ?? 'starttls';
  const timeout = opts.timeoutMs ?? 30_000;
  return {
    host: s.host,
    port: s.port ?? (mode === 'tls' ? 465 : 587),
    secure: mode === 'tls',
    requireTLS: mode === 'starttls',
    ignoreTLS: mode === 'none',
    auth: s.user ? { user: s.user, pass: s.password ?? '' } : undefined,
    connectionTimeout: timeout, greetingTimeout: timeout, socketTimeout: timeout,
  };
}
