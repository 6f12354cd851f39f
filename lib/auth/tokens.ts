import crypto from 'node:crypto';
import type { Db } from '../db/prisma';
import { AppError } from '../errors';
import { recordAudit, type AuditActor } from '../audit';
import { isRole, minRole, roleAtLeast, type Role } from './roles';
import { findUser } from './users';

/** Every API token starts with this, so leaked tokens are recognisable by secret scanners. */
export const TOKEN_PREFIX = 'trb_';

/** SHA-256 hex of a token: the only form stored. */
export function hashToken(token: string): string {
  return crypto.createHash('sha256').update(token, 'utf8').digest('hex');
}

export interface ApiTokenInfo {
  id: string;
  name: string;
  /** First characters of the token, to recognise it in lists (`trb_AbCdEfGh`). */
  prefix: string;
  role: Role;
  userId: string;
  userName: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  /** The Iceberg REST catalog hands this token the object store's secrets (`s3.access-key-id`, …). */
  vendCredentials: boolean;
}

type TokenRow = { id: string; name: string; prefix: string; role: string; userId: string; createdAt: Date; lastUsedAt: Date | null; revokedAt: Date | null; vendCredentials: boolean; user: { name: string } };

function toInfo(t: TokenRow): ApiTokenInfo {
  return {
    id: t.id, name: t.name, prefix: t.prefix, role: isRole(t.role) ? t.role : 'viewer', userId: t.userId, userName: t.user.name,
    createdAt: t.createdAt, lastUsedAt: t.lastUsedAt, revokedAt: t.revokedAt, vendCredentials: t.vendCredentials,
  };
}

/**
 * Create a bearer token for a user (by id or name). The token carries the
 * user's role at creation. Returns the plain token: it is shown once and only
 * its hash is kept. `vendCredentials` (an admin's decision: callers check
 * who asks) lets the Iceberg REST catalog hand the token the warehouse's
 * object-store secrets. (Default: false)
 */
const auditView = (t: ApiTokenInfo) => ({ name: t.name, prefix: t.prefix, user: t.userName, role: t.role, revokedAt: t.revokedAt });

export async function createApiToken(prisma: Db, input: { user: string; name: string; vendCredentials?: boolean }, audit?: AuditActor): Promise<ApiTokenInfo & { token: string }> {
  const name = input.name.trim();
  if (!name || name.length > 100) throw new AppError('validation', 'auth: token name must be 1–100 characters', { field: 'name' });
  const user = (await findUser(prisma, { id: input.user })) ?? (await findUser(prisma, { name: input.user }));
  if (!user) throw new AppError('not_found', `auth: no user ${input.user}`, { field: 'user' });
  const token = TOKEN_PREFIX + crypto.randomBytes(30).toString('base64url');
  const info = await prisma.$transaction(async (tx) => {
    const row = await tx.apiToken.create({
      data: { userId: user.id, name, tokenHash: hashToken(token), prefix: token.slice(0, TOKEN_PREFIX.length + 8), role: user.role, vendCredentials: !!input.vendCredentials },
      include: { user: { select: { name: true } } },
    });
    const i = toInfo(row);
    if (audit) await recordAudit(tx, { ...audit, action: 'token.create', target: `token:${i.userName}/${i.name}`, after: auditView(i) });
    return i;
  });
  return { ...info, token };
}

/**
 * Tokens, newest first, without their hashes.
 * @param opts.userId only this user's tokens (Default: all users)
 * @param opts.includeRevoked also revoked ones (Default: false)
 */
export async function listApiTokens(prisma: Db, opts: { userId?: string; includeRevoked?: boolean } = {}): Promise<ApiTokenInfo[]> {
  const rows = await prisma.apiToken.findMany({
    where: { ...(opts.userId ? { userId: opts.userId } : {}), ...(opts.includeRevoked ? {} : { revokedAt: null }) },
    include: { user: { select: { name: true } } },
    orderBy: { createdAt: 'desc' },
  });
  return rows.map(toInfo);
}

/**
 * Revoke a token by id (or by its full prefix). With `userId`, only that
 * user's token may be revoked. Revoking twice is harmless. Throws `not_found`.
 */
export async function revokeApiToken(prisma: Db, idOrPrefix: string, opts: { userId?: string; audit?: AuditActor } = {}): Promise<ApiTokenInfo> {
  const isId = /^[0-9a-f-]{36}$/i.test(idOrPrefix);
  const row = await prisma.apiToken.findFirst({
    where: { ...(isId ? { id: idOrPrefix } : { prefix: idOrPrefix }), ...(opts.userId ? { userId: opts.userId } : {}) },
    include: { user: { select: { name: true } } },
  });
  if (!row) throw new AppError('not_found', `auth: no API token ${idOrPrefix}`);
  if (row.revokedAt) return toInfo(row);
  return prisma.$transaction(async (tx) => {
    const updated = toInfo(await tx.apiToken.update({ where: { id: row.id }, data: { revokedAt: new Date() }, include: { user: { select: { name: true } } } }));
    if (opts.audit) await recordAudit(tx, { ...opts.audit, action: 'token.revoke', target: `token:${updated.userName}/${updated.name}`, before: auditView(toInfo(row)), after: auditView(updated) });
    return updated;
  });
}

/** Who a presented bearer token acts as: null when unknown or revoked. */
export async function authenticateApiToken(prisma: Db, token: string): Promise<{ userId: string; userName: string; role: Role; tokenId: string; tokenName: string; vendCredentials: boolean } | null> {
  if (!token.startsWith(TOKEN_PREFIX) || token.length > 200) return null;
  const row = await prisma.apiToken.findUnique({ where: { tokenHash: hashToken(token) }, include: { user: true } });
  if (!row || row.revokedAt) return null;
  // Record use at most once a minute: API polling must not turn into a write per request.
  const now = new Date();
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > 60_000) {
    await prisma.apiToken.update({ where: { id: row.id }, data: { lastUsedAt: now } }).catch(() => {}); // last-used stamp is advisory: the request itself must not fail for it
  }
  const tokenRole: Role = isRole(row.role) ? row.role : 'viewer';
  const userRole: Role = isRole(row.user.role) ? row.user.role : 'viewer';
  // Vending was granted to the user as they were when the token was made: a user since demoted
  // (an admin made a viewer) loses it at once, on this very request, without revoking the token.
  const vendCredentials = row.vendCredentials && roleAtLeast(userRole, tokenRole);
  return { userId: row.userId, userName: row.user.name, role: minRole(tokenRole, userRole), tokenId: row.id, tokenName: row.name, vendCredentials };
}
