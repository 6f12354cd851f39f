import type pg from 'pg';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';

/** Login throttling limits. */
export interface LoginThrottleOptions {
  /** Failed sign-ins per account within the window before it locks. (Default: 5) */
  maxFailuresPerAccount?: number;
  /** Failed sign-ins per client address within the window before it locks. (Default: 30) */
  maxFailuresPerAddress?: number;
  /** The window and the first lockout, seconds; each further lockout of an account within a day doubles it, up to a day. (Default: 900) */
  windowSeconds?: number;
}

export interface LoginLock { scope: 'account' | 'address'; retryAfterSeconds: number }

/** A sign-in try in flight: its failure already counted, as the n-th of the window for the account and the address. */
export interface LoginTry { account: number; address: number }

export interface LoginThrottle {
  /** The lock in force for this account or address, or null. */
  check(account: string, address: string | null): Promise<LoginLock | null>;
  /**
   * Take a try before the password is compared: it counts as a failure at
   * once (atomically, in Postgres), so concurrent tries cannot all pass the
   * check and compare more passwords than the limit allows. @returns the try, or the lock that refuses it
   */
  begin(account: string, address: string | null): Promise<{ lock: LoginLock } | { try: LoginTry }>;
  /** The try failed: lock the account or address when it was the last one allowed. @returns the lock it caused, or null */
  fail(account: string, address: string | null, t: LoginTry): Promise<LoginLock | null>;
  /** A correct password: the account's failures are forgotten, the address gets its try back (its earlier failures stay). */
  succeed(account: string, address: string | null): Promise<void>;
}

const DAY_S = 24 * 60 * 60;
const TABLE = 'login_throttle';

// rate-limiter-flexible rejects with a RateLimiterRes (not an Error) when a key is over its points.
async function consume(l: RateLimiterPostgres, key: string): Promise<RateLimiterRes> {
  try { return await l.consume(key); } catch (e) {
    if (e instanceof RateLimiterRes) return e;
    throw e;
  }
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/**
 * Per-account and per-address failure counters in Postgres (table
 * `login_throttle`, migration 0009), so every web process shares them.
 * Account keys are case-folded user names — unknown names are counted too,
 * so a lock says nothing about whether the name exists.
 */
export function createLoginThrottle(pool: pg.Pool, opts: LoginThrottleOptions = {}): LoginThrottle {
  const window = opts.windowSeconds ?? 900;
  const maxAccount = opts.maxFailuresPerAccount ?? 5;
  const maxAddress = opts.maxFailuresPerAddress ?? 30;
  const make = (keyPrefix: string, points: number, duration: number) => new RateLimiterPostgres({
    storeClient: pool, storeType: 'pool', tableName: TABLE, tableCreated: true, clearExpiredByTimeout: false,
    keyPrefix, points, duration,
  });
  const account = make('acct', maxAccount, window);
  const address = make('addr', maxAddress, window);
  // Lockouts of one account within a day: the n-th lasts window × 2^(n-1).
  const lockouts = make('lock', 1_000_000, DAY_S);
  const acctKey = (a: string) => a.trim().toLowerCase().slice(0, 200);
  const addrKey = (a: string | null) => (a ?? 'unknown').slice(0, 200);

  const lockOf = async (l: RateLimiterPostgres, points: number, key: string): Promise<number | null> => {
    const r = await l.get(key);
    return r && r.consumedPoints >= points && r.msBeforeNext > 0 ? seconds(r.msBeforeNext) : null;
  };

  return {
    async check(a, addr) {
      const acct = await lockOf(account, maxAccount, acctKey(a));
      if (acct) return { scope: 'account', retryAfterSeconds: acct };
      const ad = await lockOf(address, maxAddress, addrKey(addr));
      return ad ? { scope: 'address', retryAfterSeconds: ad } : null;
    },
    async begin(a, addr) {
      const [acct, ad] = await Promise.all([consume(account, acctKey(a)), consume(address, addrKey(addr))]);
      // Past the limit: another try of this window is comparing the last allowed password (or the lock is being set).
      if (acct.consumedPoints > maxAccount) return { lock: { scope: 'account', retryAfterSeconds: seconds(acct.msBeforeNext) } };
      if (ad.consumedPoints > maxAddress) return { lock: { scope: 'address', retryAfterSeconds: seconds(ad.msBeforeNext) } };
      return { try: { account: acct.consumedPoints, address: ad.consumedPoints } };
    },
    async fail(a, addr, t) {
      // Only the try that reached the limit locks: one lockout per crossing, however many tries ran at once.
      if (t.account === maxAccount) {
        const n = (await consume(lockouts, acctKey(a))).consumedPoints;
        const secs = Math.min(DAY_S, window * 2 ** Math.min(n - 1, 20));
        await account.block(acctKey(a), secs);
        return { scope: 'account', retryAfterSeconds: secs };
      }
      if (t.address === maxAddress) {
        await address.block(addrKey(addr), window);
        return { scope: 'address', retryAfterSeconds: window };
      }
      return null;
    },
    async succeed(a, addr) {
      await Promise.all([account.delete(acctKey(a)), address.reward(addrKey(addr), 1)]);
    },
  };
}

/** No throttling (next-auth options built without a throttle): every try is allowed and nothing is counted. */
export const noLoginThrottle: LoginThrottle = {
  check: async () => null,
  begin: async () => ({ try: { account: 0, address: 0 } }),
  fail: async () => null,
  succeed: async () => {},
};
