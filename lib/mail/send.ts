import nodemailer from 'nodemailer';
import { AppError, backoffDelay, isTransient, toError, withRetry } from '../errors';
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
  /** Wait before the second try; doubled after each failure, capped at 60 s, jittered. (Default: 2000 ms) */
  backoffMs?: number;
  /** Called after each failed try that will be tried again (to log it on the flow run). (Default: none) */
  onRetry?(attempt: number, error: Error, waitMs: number): void | Promise<void>;
  signal?: AbortSignal;
  /** Socket timeouts. (Default: 30000 ms) */
  timeoutMs?: number;
}

export interface SendResult { messageId: string; attempts: number; accepted: string[] }

// nodemailer's codes for a failure on the way to the server or while talking
// to it (no reply to judge): worth another try.
const NETWORK_CODES = new Set(['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS']);

/**
 * Whether an SMTP failure may pass with time. RFC 5321 §4.2.1: a 4yz reply is
 * a transient negative completion (mailbox busy, try again later), a 5yz reply
 * is permanent (unknown recipient, bad credentials, message refused) and
 * repeating the same command will fail the same way. Without a reply code,
 * only a connection or network failure is transient.
 */
export function isTransientSmtp(e: Error): boolean {
  const reply = (e as { responseCode?: unknown }).responseCode;
  if (typeof reply === 'number') return reply >= 400 && reply < 500;
  const code = (e as { code?: unknown }).code;
  return (typeof code === 'string' && NETWORK_CODES.has(code)) || isTransient(e);
}

/**
 * Send one mail through SMTP, retrying transient failures (no connection, a
 * 4xx reply) with jittered exponential backoff: a relay that is down or busy
 * for a while still gets the mail. A permanent 5xx reply fails at once.
 * Throws an AppError: `unavailable` when tries ran out on transient failures,
 * `fatal` for a permanent refusal.
 */
export async function sendMail(settings: SmtpSettings, msg: MailMessage, opts: SendOptions = {}): Promise<SendResult> {
  const attempts = Math.max(1, opts.attempts ?? 5);
  const base = opts.backoffMs ?? 2000;
  let tries = 0;
  try {
    return await withRetry(async (attempt) => {
      tries = attempt;
      const transport = nodemailer.createTransport(transportOptions(settings, { timeoutMs: opts.timeoutMs }));
      try {
        const info = await transport.sendMail({ from: settings.from, to: msg.to, subject: msg.subject, text: msg.text, html: msg.html });
        return { messageId: info.messageId, attempts: attempt, accepted: (info.accepted ?? []).map(String) };
      } finally {
        transport.close();
      }
    }, {
      retries: attempts - 1, retryable: isTransientSmtp, signal: opts.signal,
      delayMs: (n) => backoffDelay(n, base, 60_000),
      onRetry: (e, i) => opts.onRetry?.(i.attempt, e, i.delayMs),
    });
  } catch (e) {
    if (opts.signal?.aborted) throw e;
    const err = toError(e);
    if (!isTransientSmtp(err)) throw new AppError('fatal', `mail: refused by the server (not retried): ${err.message}`, { cause: err });
    throw new AppError('unavailable', `mail: not sent after ${tries} ${tries === 1 ? 'try' : 'tries'}: ${err.message}`, { cause: err });
  }
}
