// Outgoing mail: SMTP settings from an `smtp` connection, and a sender that
// retries with backoff.
export { sendMail, type MailMessage, type SendOptions, type SendResult } from './send';
export { smtpSettingsFrom, transportOptions, type SmtpSettings } from './smtp-options';
export { resolveSmtp } from './resolve';
