import type { Db } from '../db/prisma';
import { AppError } from '../errors';
import { recordAudit, type AuditActor } from '../audit';
import { dummyCompare, hashPassword, verifyPassword } from './password';
import { isRole, RoleSchema, type Role } from './roles';

/** A user as the API and CLI show it (never the hash). */
export interface UserInfo { id: string; name: string; role: Role; createdAt: Date }

const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

function toInfo(u: { id: string; name: string; role: string; createdAt: Date }): UserInfo {
  return { id: u.id, name: u.name, role: isRole(u.role) ? u.role : 'viewer', createdAt: u.createdAt };
}

function checkName(name: string) {
  if (!NAME_RE.test(name)) {
    throw new AppError('validation', 'auth: user name must be 1–64 characters: letters, digits, . _ @ - (starting with a letter or digit)', { field: 'name' });
  }
}

/** What the audit log keeps of a user: never the hash. */
const auditView = (u: UserInfo) => ({ name: u.name, role: u.role });

/** Create a user with a bcrypt-hashed password; a taken name is a `conflict`. */
export async function createUser(prisma: Db, input: { name: string; password: string; role: Role }, audit?: AuditActor): Promise<UserInfo> {
  checkName(input.name);
  if (!RoleSchema.safeParse(input.role).success) throw new AppError('validation', `auth: role must be admin, operator or viewer (got ${input.role})`, { field: 'role' });
  const passwordHash = await hashPassword(input.password);
  try {
    return await prisma.$transaction(async (tx) => {
      const u = toInfo(await tx.user.create({ data: { name: input.name, passwordHash, role: input.role } }));
      if (audit) await recordAudit(tx, { ...audit, action: 'user.create', target: `user:${u.name}`, after: auditView(u) });
      return u;
    });
  } catch (e) {
    if ((e as { code?: string }).code === 'P2002') throw new AppError('conflict', `auth: user ${input.name} already exists`, { field: 'name', cause: e });
    throw e;
  }
}

/**
 * Create the first admin only while no user exists (the first-run page and
 * TRIBUTARY_ADMIN_USER). An advisory lock makes two concurrent first-runs
 * create one admin, not two. Returns null when a user already exists.
 */
export async function createFirstAdmin(prisma: Db, input: { name: string; password: string }, audit?: Pick<AuditActor, 'address'>): Promise<UserInfo | null> {
  checkName(input.name);
  const passwordHash = await hashPassword(input.password);
  return prisma.$transaction(async (tx) => {
    await tx.$executeRaw`select pg_advisory_xact_lock(7201001)`;
    if ((await tx.user.count()) > 0) return null;
    const u = toInfo(await tx.user.create({ data: { name: input.name, passwordHash, role: 'admin' } }));
    await recordAudit(tx, { actor: 'setup', action: 'user.create', target: `user:${u.name}`, after: auditView(u), address: audit?.address });
    return u;
  });
}

/**
 * Make sure the env admin (TRIBUTARY_ADMIN_USER/PASSWORD) exists; an existing
 * user of that name is left as it is (its password may have been changed in the panel).
 */
export async function ensureAdminUser(prisma: Db, input: { name: string; password: string }): Promise<{ created: boolean; user: UserInfo }> {
  const existing = await prisma.user.findUnique({ where: { name: input.name } });
  if (existing) return { created: false, user: toInfo(existing) };
  try {
    return { created: true, user: await createUser(prisma, { ...input, role: 'admin' }, { actor: 'env:TRIBUTARY_ADMIN_USER' }) };
  } catch (e) {
    // Another process created it in between.
    if (e instanceof AppError && e.code === 'conflict') {
      return { created: false, user: toInfo((await prisma.user.findUnique({ where: { name: input.name } }))!) };
    }
    throw e;
  }
}

/** The user when name and password match, else null (same answer for both failures). */
export async function verifyCredentials(prisma: Db, name: string, password: string): Promise<(UserInfo & { sessionVersion: number }) | null> {
  const u = await prisma.user.findUnique({ where: { name } });
  if (!u) return dummyCompare(password).then(() => null);
  return (await verifyPassword(password, u.passwordHash)) ? { ...toInfo(u), sessionVersion: u.sessionVersion } : null;
}

/** A user with the session version a panel session must carry to be valid. */
export async function findSessionUser(prisma: Db, id: string): Promise<(UserInfo & { sessionVersion: number }) | null> {
  if (!/^[0-9a-f-]{36}$/i.test(id)) return null;
  const u = await prisma.user.findUnique({ where: { id } });
  return u ? { ...toInfo(u), sessionVersion: u.sessionVersion } : null;
}

/**
 * End every panel session of a user at once (their cookies carry an older
 * version from now on). API tokens are separate: revoke those one by one.
 */
export async function endSessions(prisma: Db, id: string, audit?: AuditActor & { action?: string }): Promise<UserInfo> {
  const existing = await findUser(prisma, { id });
  if (!existing) throw new AppError('not_found', `auth: no user ${id}`);
  return prisma.$transaction(async (tx) => {
    const u = toInfo(await tx.user.update({ where: { id }, data: { sessionVersion: { increment: 1 } } }));
    if (audit) await recordAudit(tx, { actor: audit.actor, address: audit.address, action: audit.action ?? 'user.end_sessions', target: `user:${u.name}` });
    return u;
  });
}

export async function findUser(prisma: Db, by: { id?: string; name?: string }): Promise<UserInfo | null> {
  if (by.id) {
    if (!/^[0-9a-f-]{36}$/i.test(by.id)) return null;
    const u = await prisma.user.findUnique({ where: { id: by.id } });
    return u ? toInfo(u) : null;
  }
  if (by.name) {
    const u = await prisma.user.findUnique({ where: { name: by.name } });
    return u ? toInfo(u) : null;
  }
  return null;
}

export async function listUsers(prisma: Db): Promise<UserInfo[]> {
  return (await prisma.user.findMany({ orderBy: { name: 'asc' } })).map(toInfo);
}

export async function countUsers(prisma: Db): Promise<number> {
  return prisma.user.count();
}

/**
 * Change a user's role and/or password (admin action). Either change ends the
 * user's panel sessions (the session version is bumped). Throws `not_found`.
 */
export async function updateUser(prisma: Db, id: string, change: { role?: Role; password?: string }, audit?: AuditActor): Promise<UserInfo> {
  const existing = await findUser(prisma, { id });
  if (!existing) throw new AppError('not_found', `auth: no user ${id}`);
  const data: { role?: Role; passwordHash?: string; sessionVersion?: { increment: number } } = {};
  if (change.role) data.role = change.role;
  if (change.password !== undefined) data.passwordHash = await hashPassword(change.password);
  if ((change.role && change.role !== existing.role) || change.password !== undefined) data.sessionVersion = { increment: 1 };
  return prisma.$transaction(async (tx) => {
    const u = toInfo(await tx.user.update({ where: { id }, data }));
    if (audit) {
      await recordAudit(tx, { ...audit, action: 'user.update', target: `user:${u.name}`, before: auditView(existing),
        after: { ...auditView(u), ...(change.password !== undefined ? { passwordChanged: true } : {}) } });
    }
    return u;
  });
}

/** Delete a user and, by cascade, their API tokens (their sessions end with the row). Throws `not_found`. */
export async function deleteUser(prisma: Db, id: string, audit?: AuditActor): Promise<void> {
  const existing = await findUser(prisma, { id });
  if (!existing) throw new AppError('not_found', `auth: no user ${id}`);
  await prisma.$transaction(async (tx) => {
    await tx.user.delete({ where: { id } });
    if (audit) await recordAudit(tx, { ...audit, action: 'user.delete', target: `user:${existing.name}`, before: auditView(existing) });
  });
}
