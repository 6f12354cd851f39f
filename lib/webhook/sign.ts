import crypto from 'node:crypto';

/**
 * The signature headers of one post, as Stripe and Slack sign theirs: an
 * HMAC-SHA256 over `<unix seconds>.<raw body>`, so a receiver can check both
 * who sent it and that it is fresh (reject old timestamps to stop replays).
 *   X-Tributary-Timestamp: 1764676800
 *   X-Tributary-Signature: sha256=<hex>
 */
export function signatureHeaders(secret: string, body: string, nowMs = Date.now()): Record<string, string> {
  const ts = String(Math.floor(nowMs / 1000));
  const mac = crypto.createHmac('sha256', secret).update(`${ts}.${body}`).digest('hex');
  return { 'x-tributary-timestamp': ts, 'x-tributary-signature': `sha256=${mac}` };
}

/** A receiver's check (for tests and for users' own receivers to copy): constant-time compare. */
export function verifySignature(secret: string, body: string, timestamp: string, signature: string): boolean {
  const want = Buffer.from(`sha256=${crypto.createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`);
  const got = Buffer.from(signature);
  return want.length === got.length && crypto.timingSafeEqual(want, got);
}
