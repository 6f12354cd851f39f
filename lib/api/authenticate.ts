import { AppError } from '../errors';
import { authenticateApiToken } from '../auth/tokens';
import { readSession } from '../auth/session';
import { findUser } from '../auth/users';
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
  const session = await readSession(req.headers.get('cookie'), deps.secret);
  if (!session) return null;
  // The cookie lives for hours: take the role from the database, and drop deleted users.
  const user = await findUser(deps.prisma, { id: session.id });
  if (!user) return null;
  // Cookies ride along on cross-site requests: a state change with a session
  // must come from the panel's own origin.
  if (!SAFE_METHODS.has(req.method)) {
    const origin = req.headers.get('origin');
    const host = req.headers.get('x-forwarded-host') ?? req.headers.get('host');
    if (origin && host && new URL(origin).host !== host) {
      throw new AppError('forbidden', `cross-origin request from ${origin} refused`);
    }
  }
  return { via: 'session', userId: user.id, userName: user.name, role: user.role };
}
