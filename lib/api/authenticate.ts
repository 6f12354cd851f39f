import { AppError } from '../errors';
import { authenticateApiToken } from '../auth/tokens';
import { sessionUser } from '../auth/session';
import { clientAddress } from '../auth/login';
import type { AuditActor } from '../audit';
import { checkCookieMutation } from './origin';
import type { Role } from '../auth/roles';
import type { ServerDeps } from './deps';

/** Who makes a request. */
export interface Principal {
  via: 'session' | 'token';
  userId: string;
  userName: string;
  role: Role;
  /** Set when authenticated by an API token. */
  tokenId?: string;
  tokenName?: string;
}

/** `user:<name>` or `token:<user>/<token name>`, for job_runs.created_by. */
export function principalLabel(p: Principal): string {
  return p.via === 'token' ? `token:${p.userName}/${p.tokenName}` : `user:${p.userName}`;
}

/** Who, from where: what a route hands to writes that record an audit event. */
export function auditActor(p: Principal, req: Request): AuditActor {
  return { actor: principalLabel(p), address: clientAddress(req.headers) };
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * A bearer token (`Authorization: Bearer trb_…`) or the panel's session
 * cookie; null when the request carries neither. A presented but invalid
 * token is a 401, never a fall-back to the cookie.
 */
export async function authenticate(req: Request, deps: ServerDeps): Promise<Principal | null> {
  const authz = req.headers.get('authorization');
  if (authz) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authz);
    if (!m) throw new AppError('unauthorized', 'Authorization header must be `Bearer <token>`');
    const who = await authenticateApiToken(deps.prisma, m[1]);
    if (!who) throw new AppError('unauthorized', 'API token is unknown or revoked');
    return { via: 'token', userId: who.userId, userName: who.userName, role: who.role, tokenId: who.tokenId, tokenName: who.tokenName };
  }
  // The cookie lives for hours: the role comes from the database, deleted
  // users and ended sessions (an older session version) are dropped.
  const user = await sessionUser(deps.prisma, req.headers.get('cookie'), deps.secret, deps.secureCookies);
  if (!user) return null;
  if (!SAFE_METHODS.has(req.method)) checkCookieMutation(req, deps.env);
  return { via: 'session', userId: user.id, userName: user.name, role: user.role };
}
