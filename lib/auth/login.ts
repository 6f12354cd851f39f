import type { Db } from '../db/prisma';
import type { Logger } from '../log';
import { recordAudit } from '../audit';
import type { LoginLock, LoginThrottle } from './login-throttle';
import { verifyCredentials, type UserInfo } from './users';

export type LoginResult =
  | { status: 'ok'; user: UserInfo & { sessionVersion: number } }
  | { status: 'invalid' }
  | { status: 'locked'; retryAfterSeconds: number };

/**
 * One sign-in attempt, throttled: a locked account or address is refused
 * before any password is compared (the right password too, until the lock
 * ends); a try is counted before its compare, so tries sent at once compare
 * no more passwords than the limit (login-throttle.ts); a failure is counted, logged (user, address, time) and written to
 * the audit log, and so is the lockout it may cause.
 */
export async function attemptLogin(
  deps: { prisma: Db; throttle: LoginThrottle; logger?: Logger },
  input: { name: string; password: string; address: string | null },
): Promise<LoginResult> {
  const name = input.name.slice(0, 200);
  const at = { user: name, address: input.address, time: new Date().toISOString() };
  const event = (action: string, after?: unknown) =>
    recordAudit(deps.prisma, { actor: `login:${name}`, action, target: `user:${name}`, after, address: input.address });

  const lock = await deps.throttle.check(name, input.address);
  if (lock) {
    await recordRefusedLogin(deps, { name, address: input.address }, lock);
    return { status: 'locked', retryAfterSeconds: lock.retryAfterSeconds };
  }
  const taken = await deps.throttle.begin(name, input.address);
  if ('lock' in taken) {
    await recordRefusedLogin(deps, { name, address: input.address }, taken.lock);
    return { status: 'locked', retryAfterSeconds: taken.lock.retryAfterSeconds };
  }
  const user = await verifyCredentials(deps.prisma, name, input.password);
  if (user) {
    await deps.throttle.succeed(name, input.address);
    await event('login.success');
    return { status: 'ok', user };
  }
  const locked = await deps.throttle.fail(name, input.address, taken.try);
  deps.logger?.warn('login failed', at);
  await event('login.failure');
  if (locked) {
    deps.logger?.warn('login locked out', { ...at, scope: locked.scope, retryAfterSeconds: locked.retryAfterSeconds });
    await event('login.lockout', locked);
    return { status: 'locked', retryAfterSeconds: locked.retryAfterSeconds };
  }
  return { status: 'invalid' };
}

/** Log and audit an attempt refused because of a lock in force (no password was compared). */
export async function recordRefusedLogin(deps: { prisma: Db; logger?: Logger }, input: { name: string; address: string | null }, lock: LoginLock): Promise<void> {
  const name = input.name.slice(0, 200);
  deps.logger?.warn('login refused: locked', { user: name, address: input.address, time: new Date().toISOString(), scope: lock.scope, retryAfterSeconds: lock.retryAfterSeconds });
  await recordAudit(deps.prisma, { actor: `login:${name}`, action: 'login.refused', target: `user:${name}`, after: lock, address: input.address });
}

/**
 * The client address of a request: the first `X-Forwarded-For` hop (Next's
 * server sets it from the socket when no proxy did), else `X-Real-IP`.
 * Behind no proxy a client can send its own header: the per-account limit
 * holds regardless; the per-address one is only as good as the proxy in front.
 */
export function clientAddress(headers: Headers | Record<string, string | string[] | undefined>): string | null {
  const get = (k: string) => {
    if (headers instanceof Headers) return headers.get(k);
    const v = headers[k];
    return Array.isArray(v) ? v[0] : v ?? null;
  };
  const xff = get('x-forwarded-for');
  const first = xff?.split(',')[0]?.trim();
  return (first || get('x-real-ip') || null)?.slice(0, 100) ?? null;
}
