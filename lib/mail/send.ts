import nodemailer from 'nodemailer';
import { toError } from '../errors';
import { transportOptions, type SmtpSettings } from './smtp-options';

export interface MailMessage {
  to: string[];
  subject: string;
  text: string;
  html?: string;
}

export interface SendOptions {
  /** Tries in all, the first included. (Default: 5) */
  attempts?: number;
  /** Wait before the second try; doubled after each failure, capped at 60 s. (Default: 2000 ms) */
  backoffMs?: number;
  /** Called after each failed try (to log it on the flow run). (Default: none) */
  onRetry?(attempt: number, error: Error, waitMs: number): void | Promise<void>;
  signal?: AbortSignal;
  /** Socket timeouts. (Default: 30000 ms) */
  timeoutMs?: number;
}

export interface SendResult { messageId: string; attempts: number; accepted: string[] }

const sleep = (ms: number, signal?: AbortSignal) => new Promise<void>((resolve, reject) => {
  if (signal?.aborted) return reject(signal.reason);
  const t = setTimeout(resolve, ms);
  signal?.addEventListener('abort', () => { clearTimeout(t); reject(signal.reason); }, { once: true });
});

/**
 * Send one mail through SMTP, retrying with exponential backoff: a relay
 * that is down or answers 4xx for a while still gets the mail. Throws the
 * last error when every try failed.
 */
export async function sendMail(settings: SmtpSettings, msg: MailMessage, opts: SendOptions = {}): Promise<SendResult> {
  const attempts = Math.max(1, opts.attempts ?? 5);
  let wait = opts.backoffMs ?? 2000;
  for (let attempt = 1; ; attempt++) {
    const transport = nodemailer.createTransport(transportOptions(settings, { timeoutMs: opts.timeoutMs }));
    try {
      const info = await transport.sendMail({ from: settings.from, to: msg.to, subject: msg.subject, text: msg.text, html: msg.html });
      return { messageId: info.messageId, attempts: attempt, accepted: (info.accepted ?? []).map(String) };
    } catch (e) {
      const err = toError(e);
      if (attempt >= attempts) throw new Error(`mail: not sent after ${attempt} tries: ${err.message}`, { cause: err });
      await opts.onRetry?.(attempt, err, wait);
      await sleep(wait, opts.signal);
      wait = Math.min(wait * 2, 60_000);
    } finally {
      transport.close();
    }
  }
}
