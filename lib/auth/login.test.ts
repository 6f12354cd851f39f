// Throttled sign-in against real Postgres: the lock holds across throttle
// instances (as across web processes), refuses the right password until the
// window passes, grows, and every failure and lockout reaches the audit log.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import bcrypt from 'bcryptjs';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { createPrisma, type Db } from '../db/prisma';
import { createLogger } from '../log';
import { attemptLogin, clientAddress, createLoginThrottle, createUser, DUMMY_HASH, verifyCredentials, type LoginLock, type LoginThrottle } from './index';

let db: TestDatabase;
let prisma: Db;
beforeAll(async () => {
  db = await createTestDatabase();
  prisma = createPrisma(db.url, { max: 3 });
  await createUser(prisma, { name: 'alice', password: 'alice-password' , role: 'operator' });
});
afterAll(async () => { await prisma.$disconnect(); await db.drop(); });

/**
 * The window passing, without waiting for it: the counter rows of a key end
 * now (the limiter reads `expire` as epoch milliseconds). The lockout history
 * (`lock:` keys, a day long) is kept, as it would be.
 */
async function endWindow(key: string): Promise<void> {
  await db.pool.query(`update login_throttle set expire = (extract(epoch from now()) * 1000)::bigint - 1 where key = $1`, [key]);
}
/** One failed try through the throttle, as attemptLogin makes it. */
async function failOnce(t: LoginThrottle, account: string, address: string | null): Promise<LoginLock | null> {
  const b = await t.begin(account, address);
  return 'lock' in b ? b.lock : t.fail(account, address, b.try);
}

describe('login throttling', () => {
  it('locks after the failures, refuses the right password until the window passes, and logs and audits', async () => {
    const lines: { message: string; fields?: Record<string, unknown> }[] = [];
    const logger = createLogger((r) => lines.push({ message: r.message, fields: r.fields }), { level: 'debug' });
    // Two throttles on one table: two web processes share one count. The window is long enough for
    // forty tries on a loaded machine (a 2 s one once expired between the first and fifth failure).
    const opts = { maxFailuresPerAccount: 5, maxFailuresPerAddress: 1000, windowSeconds: 60 };
    const web1 = createLoginThrottle(db.pool, opts);
    const web2 = createLoginThrottle(db.pool, opts);
    const results = [];
    for (let i = 0; i < 40; i++) {
      results.push(await attemptLogin({ prisma, throttle: i % 2 ? web1 : web2, logger }, { name: 'alice', password: `wrong-${i}`, address: '198.51.100.7' }));
    }
    expect(results.slice(0, 4).map((r) => r.status)).toEqual(['invalid', 'invalid', 'invalid', 'invalid']);
    expect(results[4]).toMatchObject({ status: 'locked', retryAfterSeconds: 60 });
    expect(results.slice(5).every((r) => r.status === 'locked' && r.retryAfterSeconds >= 1)).toBe(true);

    // The right password, while locked: refused.
    expect(await attemptLogin({ prisma, throttle: web1, logger }, { name: 'alice', password: 'alice-password', address: '198.51.100.7' })).toMatchObject({ status: 'locked' });
    // The name is case-folded: ALICE is the same account.
    expect(await attemptLogin({ prisma, throttle: web2 }, { name: 'ALICE', password: 'x', address: '203.0.113.1' })).toMatchObject({ status: 'locked' });

    expect(await web1.check('alice', null)).toMatchObject({ scope: 'account' });
    await endWindow('acct:alice');
    expect(await web1.check('alice', null)).toBeNull();
    expect(await attemptLogin({ prisma, throttle: web2, logger }, { name: 'alice', password: 'alice-password', address: '198.51.100.7' })).toMatchObject({ status: 'ok' });

    const failures = lines.filter((l) => l.message === 'login failed');
    expect(failures).toHaveLength(5);
    expect(failures[0].fields).toMatchObject({ user: 'alice', address: '198.51.100.7', time: expect.any(String) });
    expect(lines.filter((l) => l.message === 'login locked out')).toHaveLength(1);
    // 35 of the forty and the right password were refused without a compare (ALICE is audited as typed).
    const audit = await db.pool.query(`select action, count(*)::int as n from audit_events where target = 'user:alice' group by action order by action`);
    expect(Object.fromEntries(audit.rows.map((r) => [r.action, r.n]))).toEqual({ 'login.failure': 5, 'login.lockout': 1, 'login.refused': 36, 'login.success': 1 });
    const one = (await db.pool.query(`select * from audit_events where action = 'login.lockout'`)).rows[0];
    expect(one).toMatchObject({ actor: 'login:alice', address: '198.51.100.7' });
    expect(one.after).toMatchObject({ scope: 'account', retryAfterSeconds: 60 });
  });

  it('tries sent at once compare no more passwords than the limit, and lock once, for the first window', async () => {
    await createUser(prisma, { name: 'bob', password: 'bob-password-123', role: 'viewer' });
    const lines: string[] = [];
    const logger = createLogger((r) => lines.push(r.message), { level: 'debug' });
    const opts = { maxFailuresPerAccount: 5, maxFailuresPerAddress: 1000, windowSeconds: 60 };
    const throttles = [createLoginThrottle(db.pool, opts), createLoginThrottle(db.pool, opts), createLoginThrottle(db.pool, opts)];
    const results = await Promise.all(Array.from({ length: 24 }, (_, i) =>
      attemptLogin({ prisma, throttle: throttles[i % 3], logger }, { name: 'bob', password: `guess-${i}`, address: `198.51.100.${i}` })));
    expect(results.filter((r) => r.status === 'invalid').length + results.filter((r) => r.status === 'locked').length).toBe(24);
    expect(lines.filter((l) => l === 'login failed')).toHaveLength(5);
    expect(lines.filter((l) => l === 'login locked out')).toHaveLength(1);
    const audit = await db.pool.query(`select action, count(*)::int as n from audit_events where target = 'user:bob' group by action order by action`);
    expect(Object.fromEntries(audit.rows.map((r) => [r.action, r.n]))).toEqual({ 'login.failure': 5, 'login.lockout': 1, 'login.refused': 19 });
    // The lock is the first one (one window), not one grown once per try that ran over the limit.
    const lock = await throttles[0].check('bob', null);
    expect(lock).toMatchObject({ scope: 'account' });
    expect(lock!.retryAfterSeconds).toBeLessThanOrEqual(60);
    expect((await db.pool.query(`select points from login_throttle where key = 'lock:bob'`)).rows[0].points).toBe(1);
  });

  it('a right password gives the address its try back', async () => {
    const t = createLoginThrottle(db.pool, { maxFailuresPerAccount: 100, maxFailuresPerAddress: 2, windowSeconds: 60 });
    for (let i = 0; i < 3; i++) expect(await attemptLogin({ prisma, throttle: t }, { name: 'alice', password: 'alice-password', address: '192.0.2.77' })).toMatchObject({ status: 'ok' });
    expect(await failOnce(t, 'alice', '192.0.2.77')).toBeNull();
    expect(await failOnce(t, 'alice', '192.0.2.77')).toMatchObject({ scope: 'address' });
  });

  it('grows the lock with each lockout of the same account', async () => {
    const t = createLoginThrottle(db.pool, { maxFailuresPerAccount: 2, maxFailuresPerAddress: 1000, windowSeconds: 60 });
    expect(await failOnce(t, 'grow', null)).toBeNull();
    expect(await failOnce(t, 'grow', null)).toMatchObject({ retryAfterSeconds: 60 });
    await endWindow('acct:grow');
    expect(await failOnce(t, 'grow', null)).toBeNull();
    expect(await failOnce(t, 'grow', null)).toMatchObject({ retryAfterSeconds: 120 });
  });

  it('locks an address that tries many accounts', async () => {
    const t = createLoginThrottle(db.pool, { maxFailuresPerAccount: 100, maxFailuresPerAddress: 3, windowSeconds: 60 });
    for (const n of ['u1', 'u2']) expect(await failOnce(t, n, '192.0.2.9')).toBeNull();
    expect(await failOnce(t, 'u3', '192.0.2.9')).toMatchObject({ scope: 'address', retryAfterSeconds: 60 });
    expect(await t.check('someone-else', '192.0.2.9')).toMatchObject({ scope: 'address' });
    expect(await t.check('someone-else', '192.0.2.10')).toBeNull();
  });
});

describe('unknown user names', () => {
  it('spend a real bcrypt compare against the dummy hash, so timing does not tell names apart', async () => {
    const spy = vi.spyOn(bcrypt, 'compare');
    try {
      expect(await verifyCredentials(prisma, 'no-such-user', 'some-password')).toBeNull();
      expect(spy).toHaveBeenCalledTimes(1);
      expect(spy.mock.calls[0][1]).toBe(DUMMY_HASH);
      spy.mockClear();
      expect(await verifyCredentials(prisma, 'alice', 'wrong-password')).toBeNull();
      expect(spy).toHaveBeenCalledTimes(1);
      expect(spy.mock.calls[0][1]).not.toBe(DUMMY_HASH);
    } finally { spy.mockRestore(); }
    // The dummy hash has the cost of real ones.
    const real = (await prisma.user.findUniqueOrThrow({ where: { name: 'alice' } })).passwordHash;
    expect(DUMMY_HASH.slice(0, 7)).toBe(real.slice(0, 7));
  });

  it('reads the client address from the forwarding headers', () => {
    expect(clientAddress(new Headers({ 'x-forwarded-for': '203.0.113.5, 10.0.0.1' }))).toBe('203.0.113.5');
    expect(clientAddress({ 'x-real-ip': '192.0.2.1' })).toBe('192.0.2.1');
    expect(clientAddress({})).toBeNull();
  });
});
