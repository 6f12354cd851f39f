import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encode } from 'next-auth/jwt';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { createPrisma, type Db } from '../db/prisma';
import {
  authenticateApiToken, createApiToken, createFirstAdmin, createUser, ensureAdminUser, listApiTokens, loadSecret,
  readSession, revokeApiToken, roleAtLeast, verifyCredentials, createAuthOptions, sessionUser, updateUser, endSessions,
} from './index';

let db: TestDatabase;
let prisma: Db;
beforeAll(async () => { db = await createTestDatabase(); prisma = createPrisma(db.url, { max: 3 }); });
afterAll(async () => { await prisma.$disconnect(); await db.drop(); });

describe('users', () => {
  it('creates only one first admin even when two first-runs race, then refuses', async () => {
    const [a, b] = await Promise.all([
      createFirstAdmin(prisma, { name: 'alice', password: 'alice-pass-1' }),
      createFirstAdmin(prisma, { name: 'bob', password: 'bob-pass-12' }),
    ]);
    expect([a, b].filter(Boolean)).toHaveLength(1);
    expect(await prisma.user.count()).toBe(1);
    expect(await createFirstAdmin(prisma, { name: 'carol', password: 'carol-pass' })).toBeNull();
  });

  it('stores a bcrypt hash and verifies credentials', async () => {
    const u = await createUser(prisma, { name: 'op', password: 'operator-pw', role: 'operator' });
    const row = await prisma.user.findUniqueOrThrow({ where: { id: u.id } });
    expect(row.passwordHash).toMatch(/^\$2[aby]\$/);
    expect(row.passwordHash).not.toContain('operator-pw');
    expect((await verifyCredentials(prisma, 'op', 'operator-pw'))?.role).toBe('operator');
    expect(await verifyCredentials(prisma, 'op', 'wrong-password')).toBeNull();
    expect(await verifyCredentials(prisma, 'nobody', 'operator-pw')).toBeNull();
  });

  it('rejects duplicates, short passwords and bad roles with the field named', async () => {
    await expect(createUser(prisma, { name: 'op', password: 'another-pw', role: 'viewer' })).rejects.toMatchObject({ code: 'conflict', field: 'name' });
    await expect(createUser(prisma, { name: 'x1', password: 'short', role: 'viewer' })).rejects.toMatchObject({ code: 'validation', field: 'password' });
    await expect(createUser(prisma, { name: 'x2', password: 'long-enough', role: 'root' as never })).rejects.toMatchObject({ field: 'role' });
    await expect(createUser(prisma, { name: 'bad name', password: 'long-enough', role: 'viewer' })).rejects.toMatchObject({ field: 'name' });
  });

  it('ensureAdminUser creates once and leaves an existing user alone', async () => {
    const a = await ensureAdminUser(prisma, { name: 'envadmin', password: 'env-admin-pw' });
    const b = await ensureAdminUser(prisma, { name: 'envadmin', password: 'other-password' });
    expect([a.created, b.created]).toEqual([true, false]);
    expect(await verifyCredentials(prisma, 'envadmin', 'env-admin-pw')).not.toBeNull();
  });

  it('orders roles', () => {
    expect(roleAtLeast('admin', 'operator')).toBe(true);
    expect(roleAtLeast('viewer', 'operator')).toBe(false);
    expect(roleAtLeast('operator', 'operator')).toBe(true);
  });
});

describe('API tokens', () => {
  it('shows the token once, stores only its hash, authenticates with the creator role, and revokes', async () => {
    const created = await createApiToken(prisma, { user: 'op', name: 'ci' });
    expect(created.token).toMatch(/^trb_[A-Za-z0-9_-]{40}$/);
    expect(created.role).toBe('operator');
    const row = await prisma.apiToken.findUniqueOrThrow({ where: { id: created.id } });
    expect(row.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(created.token);
    const who = await authenticateApiToken(prisma, created.token);
    expect(who).toMatchObject({ userName: 'op', role: 'operator', tokenId: created.id });
    expect((await prisma.apiToken.findUniqueOrThrow({ where: { id: created.id } })).lastUsedAt).not.toBeNull();
    expect(await authenticateApiToken(prisma, created.token + 'x')).toBeNull();
    expect(await authenticateApiToken(prisma, 'nonsense')).toBeNull();

    const list = await listApiTokens(prisma);
    expect(list.map((t) => t.id)).toContain(created.id);
    expect(JSON.stringify(list)).not.toContain(created.token);

    await revokeApiToken(prisma, created.id);
    expect(await authenticateApiToken(prisma, created.token)).toBeNull();
    expect((await listApiTokens(prisma)).map((t) => t.id)).not.toContain(created.id);
    expect((await listApiTokens(prisma, { includeRevoked: true })).map((t) => t.id)).toContain(created.id);
  });

  it('never grants more than the user currently has', async () => {
    const t = await createApiToken(prisma, { user: 'op', name: 'later-downgraded' });
    await prisma.user.update({ where: { name: 'op' }, data: { role: 'viewer' } });
    expect((await authenticateApiToken(prisma, t.token))?.role).toBe('viewer');
    await prisma.user.update({ where: { name: 'op' }, data: { role: 'operator' } });
  });

  it('refuses revoking another user token when scoped, and unknown users', async () => {
    const t = await createApiToken(prisma, { user: 'envadmin', name: 'admin-token' });
    const op = await prisma.user.findUniqueOrThrow({ where: { name: 'op' } });
    await expect(revokeApiToken(prisma, t.id, { userId: op.id })).rejects.toMatchObject({ code: 'not_found' });
    await expect(createApiToken(prisma, { user: 'ghost', name: 'x' })).rejects.toMatchObject({ code: 'not_found', field: 'user' });
  });
});

describe('sessions and secret', () => {
  it('reads a session cookie written by next-auth and rejects a forged one', async () => {
    const secret = 'a-test-secret-of-enough-length';
    const token = await encode({ token: { sub: 'u1', name: 'alice', role: 'admin' }, secret });
    expect(await readSession(`other=1; next-auth.session-token=${token}`, secret)).toEqual({ id: 'u1', name: 'alice', role: 'admin', sessionVersion: 0 });
    expect(await readSession(`next-auth.session-token=${token}`, 'another-secret-of-enough-len')).toBeNull();
    expect(await readSession(null, secret)).toBeNull();
    const opts = createAuthOptions({ prisma, secret });
    expect(opts.session?.strategy).toBe('jwt');
    expect(opts.providers).toHaveLength(1);
  });

  it('ends every older session on a password change, a role change and "end sessions", not on a no-op', async () => {
    const secret = 'a-test-secret-of-enough-length';
    const u = await createUser(prisma, { name: 'sess', password: 'sess-password', role: 'operator' });
    const cookieAt = async (sv: number) => `next-auth.session-token=${await encode({ token: { sub: u.id, name: 'sess', role: 'operator', sv }, secret })}`;
    const c0 = await cookieAt(0);
    expect(await sessionUser(prisma, c0, secret)).toMatchObject({ name: 'sess' });
    await updateUser(prisma, u.id, { role: 'operator' });
    expect(await sessionUser(prisma, c0, secret)).not.toBeNull();
    await updateUser(prisma, u.id, { password: 'new-sess-password' });
    expect(await sessionUser(prisma, c0, secret)).toBeNull();
    const c1 = await cookieAt(1);
    expect(await sessionUser(prisma, c1, secret)).not.toBeNull();
    await updateUser(prisma, u.id, { role: 'viewer' });
    expect(await sessionUser(prisma, c1, secret)).toBeNull();
    const c2 = await cookieAt(2);
    await endSessions(prisma, u.id);
    expect(await sessionUser(prisma, c2, secret)).toBeNull();
    expect(await sessionUser(prisma, await cookieAt(3), secret)).toMatchObject({ role: 'viewer' });
  });

  it('generates the secret once per data folder', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trb-secret-'));
    try {
      const a = loadSecret({ dataDir: dir, TRIBUTARY_SECRET: undefined });
      const b = loadSecret({ dataDir: dir, TRIBUTARY_SECRET: undefined });
      expect(a).toBe(b);
      expect(a.length).toBeGreaterThanOrEqual(32);
      expect(loadSecret({ dataDir: dir, TRIBUTARY_SECRET: 'explicit-secret-123' })).toBe('explicit-secret-123');
    } finally { fs.rmSync(dir, { recursive: true, force: true }); }
  });
});
