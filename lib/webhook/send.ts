import { AppError, backoffDelay, toError, withRetry } from '../errors';
import type { WebhookSettings } from './settings';
import { signatureHeaders } from './sign';

export interface WebhookSendOptions {
  /** Tries in all, the first included. (Default: 5) */
  attempts?: number;
  /** Wait before the second try; doubled after each failure, capped at 60 s. (Default: 2000 ms) */
  backoffMs?: number;
  /** Per-try timeout. (Default: 15000 ms) */
  timeoutMs?: number;
  onRetry?(attempt: number, error: Error, waitMs: number): void;
  signal?: AbortSignal;
}

export interface WebhookSendResult { status: number; attempts: number }

/** A try worth repeating: no answer, a timeout, 408, 429 or a 5xx. A 4xx (bad URL, bad key) will not change. */
class WebhookHttpError extends AppError {
  constructor(readonly status: number, text: string) {
    super(status >= 500 || status === 408 || status === 429 ? 'unavailable' : 'validation', `webhook: the endpoint answered ${status}${text ? `: ${text.slice(0, 300)}` : ''}`);
  }
}
const retryable = (e: Error) => !(e instanceof WebhookHttpError) || e.code === 'unavailable';

/**
 * Post one JSON body to a webhook, signed when the connection has a secret,
 * retrying transient failures with exponential backoff. Throws the last
 * error when every try failed.
 */
export async function sendWebhook(s: WebhookSettings, body: unknown, o: WebhookSendOptions = {}): Promise<WebhookSendResult> {
  const raw = JSON.stringify(body);
  const attempts = Math.max(1, o.attempts ?? 5);
  const base = o.backoffMs ?? 2000;
  let tries = 0;
  try {
    const status = await withRetry(async () => {
      tries++;
      const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'tributary-webhook/1', ...(s.secret ? signatureHeaders(s.secret, raw) : {}) };
      const signal = o.signal ? AbortSignal.any([o.signal, AbortSignal.timeout(o.timeoutMs ?? 15_000)]) : AbortSignal.timeout(o.timeoutMs ?? 15_000);
      let res: Response;
      try {
        res = await fetch(s.url, { method: 'POST', headers, body: raw, signal, redirect: 'error' });
      } catch (e) {
        if (o.signal?.aborted) throw e;
        throw new AppError('unavailable', `webhook: no answer from the endpoint: ${toError(e).message}`, { cause: e });
      }
      if (!res.ok) throw new WebhookHttpError(res.status, await res.text().catch(() => ''));
      await res.body?.cancel().catch(() => {});
      return res.status;
    }, {
      retries: attempts - 1, retryable, signal: o.signal,
      delayMs: (n) => backoffDelay(n, base, 60_000),
      onRetry: (e, i) => o.onRetry?.(i.attempt, e, i.delayMs),
    });
    return { status, attempts: tries };
  } catch (e) {
    const err = toError(e);
    throw new AppError(err instanceof AppError ? err.code : 'unavailable', `webhook: not delivered to '${s.connection}' after ${tries} ${tries === 1 ? 'try' : 'tries'} (last: ${err.message})`, { cause: err });
  }
}
