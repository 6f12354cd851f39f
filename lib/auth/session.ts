import type { NextAuthOptions } from 'next-auth';
import CredentialsImport from 'next-auth/providers/credentials';
import { decode } from 'next-auth/jwt';
import type { Env } from '../config/env';
import type { Db } from '../db/prisma';
import type { Logger } from '../log';
import { recordAudit } from '../audit';
import { attemptLogin, clientAddress } from './login';
import { noLoginThrottle, type LoginThrottle } from './login-throttle';
import { isRole, type Role } from './roles';
import { findSessionUser, type UserInfo } from './users';

/** Who is signed in, as read from the session cookie. */
export interface SessionUser {
  id: string; name: string; role: Role;
  /** The user's session version at sign-in; the session is valid while it is still current. */
  sessionVersion: number;
}

/** How long a panel session lasts without activity. (Default: 12 hours) */
const SESSION_MAX_AGE_S = 12 * 60 * 60;

/**
 * Whether session cookies are `Secure` (and named `__Secure-…`): the panel is
 * served over plain http on 127.0.0.1 by default, so only when the operator
 * says its URL is https. Read from the settings once, by the server's deps.
 */
export function usesSecureCookies(settings: Pick<Env, 'NEXTAUTH_URL'>): boolean {
  return (settings.NEXTAUTH_URL ?? '').startsWith('https://');
}
const cookieName = (secure: boolean) => (secure ? '__Secure-next-auth.session-token' : 'next-auth.session-token');

// The provider module is CommonJS with `exports.default`: bundlers unwrap it, plain Node ESM does not.
const Credentials: typeof CredentialsImport = typeof CredentialsImport === 'function'
  ? CredentialsImport
  : (CredentialsImport as unknown as { default: typeof CredentialsImport }).default;

/**
 * The error next-auth's callback answers with when a sign-in is refused by
 * the throttle (the route turns it into 429 with Retry-After).
 */
export const LOCKED_ERROR = 'TooManyAttempts';

/**
 * next-auth options: one credentials provider (throttled when given a
 * throttle), JWT sessions carrying id, name, role and the session version,
 * which the JWT callback checks on every use, so a bumped version ends the session.
 */
export function createAuthOptions(deps: {
  prisma: Db; secret: string; throttle?: LoginThrottle; logger?: Logger;
  /** Secure session cookies (`usesSecureCookies(settings)`). (Default: false) */
  secureCookies?: boolean;
}): NextAuthOptions {
  const provider = Credentials({
    id: 'credentials',
    name: 'Tributary',
    credentials: { username: { label: 'User', type: 'text' }, password: { label: 'Password', type: 'password' } },
    authorize: async (c, req) => {
      if (!c?.username || !c.password) return null;
      const throttle = deps.throttle ?? noLoginThrottle;
      const r = await attemptLogin({ prisma: deps.prisma, throttle, logger: deps.logger },
        { name: c.username, password: c.password, address: clientAddress((req?.headers ?? {}) as Record<string, string>) });
      if (r.status === 'locked') throw new Error(LOCKED_ERROR);
      return r.status === 'ok' ? { id: r.user.id, name: r.user.name, role: r.user.role, sessionVersion: r.user.sessionVersion } : null;
    },
  });
  return {
    secret: deps.secret,
    session: { strategy: 'jwt', maxAge: SESSION_MAX_AGE_S },
    pages: { signIn: '/login', error: '/login' },
    useSecureCookies: deps.secureCookies ?? false,
    providers: [provider],
    callbacks: {
      jwt: async ({ token, user }) => {
        const t = token as typeof token & { role?: string; sv?: number };
        if (user) {
          t.sub = user.id;
          t.name = user.name;
          t.role = (user as { role?: string }).role;
          t.sv = (user as { sessionVersion?: number }).sessionVersion ?? 0;
          return t;
        }
        // Throwing makes next-auth clear the cookie: the session has ended.
        const u = t.sub ? await findSessionUser(deps.prisma, t.sub) : null;
        if (!u || u.sessionVersion !== (t.sv ?? 0)) throw new Error('auth: session ended');
        t.role = u.role;
        return t;
      },
      session: async ({ session, token }) => {
        const s = session as typeof session & { user: { id?: string; role?: string } };
        s.user = { ...s.user, id: token.sub, name: token.name, role: (token as { role?: string }).role };
        return s;
      },
    },
    events: {
      // Signing out ends every session of the user, not just this cookie:
      // a copied cookie must not outlive the sign-out.
      signOut: async ({ token }) => {
        const id = (token as { sub?: string } | null)?.sub;
        if (!id) return;
        const u = await findSessionUser(deps.prisma, id);
        if (!u) return;
        await deps.prisma.$transaction(async (tx) => {
          await tx.user.update({ where: { id }, data: { sessionVersion: { increment: 1 } } });
          await recordAudit(tx, { actor: `user:${u.name}`, action: 'user.sign_out', target: `user:${u.name}` });
        });
      },
    },
  };
}

/**
 * The user of a session cookie when it is valid now: user still there, session version current (role fresh from the database).
 * @param secureCookies whether the server names its cookie `__Secure-…` (`usesSecureCookies(settings)`). (Default: false)
 */
export async function sessionUser(prisma: Db, cookieHeader: string | null | undefined, secret: string, secureCookies = false): Promise<UserInfo | null> {
  const s = await readSession(cookieHeader, secret, secureCookies);
  if (!s) return null;
  const u = await findSessionUser(prisma, s.id);
  if (!u || u.sessionVersion !== s.sessionVersion) return null;
  return { id: u.id, name: u.name, role: u.role, createdAt: u.createdAt };
}

function parseCookies(header: string | null | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i < 0) continue;
    const k = part.slice(0, i).trim();
    if (!k) continue;
    // Another site's broken cookie (`foo=%E0%A4%A`) is no session of ours: skipped, never a URIError.
    try { out.set(k, decodeURIComponent(part.slice(i + 1).trim())); } catch { /* not ours to read */ }
  }
  return out;
}

/**
 * Read the next-auth session cookie (whole, or split in `.0`, `.1`… chunks)
 * from a Cookie header; null when absent, expired or forged.
 * @param secureCookies as for `sessionUser`. (Default: false)
 */
export async function readSession(cookieHeader: string | null | undefined, secret: string, secureCookies = false): Promise<SessionUser | null> {
  const cookies = parseCookies(cookieHeader);
  const name = cookieName(secureCookies);
  let token = cookies.get(name);
  if (!token) {
    const chunks: string[] = [];
    for (let i = 0; cookies.has(`${name}.${i}`); i++) chunks.push(cookies.get(`${name}.${i}`)!);
    token = chunks.join('') || undefined;
  }
  if (!token) return null;
  try {
    const jwt = await decode({ token, secret });
    const role = (jwt as { role?: unknown } | null)?.role;
    if (!jwt?.sub || !isRole(role)) return null;
    const sv = (jwt as { sv?: unknown }).sv;
    return { id: jwt.sub, name: String(jwt.name ?? ''), role, sessionVersion: typeof sv === 'number' ? sv : 0 };
  } catch {
    return null;
  }
}
