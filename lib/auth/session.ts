import type { NextAuthOptions } from 'next-auth';
import CredentialsImport from 'next-auth/providers/credentials';
import { decode } from 'next-auth/jwt';
import { parseEnv } from '../config/env';
import type { Db } from '../db/prisma';
import { isRole, type Role } from './roles';
import { verifyCredentials } from './users';

/** Who is signed in, as read from the session cookie. */
export interface SessionUser { id: string; name: string; role: Role }

/** How long a panel session lasts without activity. (Default: 12 hours) */
const SESSION_MAX_AGE_S = 12 * 60 * 60;

// The panel is served over plain http on 127.0.0.1 by default: secure cookies
// only when the operator says the public URL is https.
const secureCookies = () => (parseEnv().NEXTAUTH_URL ?? '').startsWith('https://');
const cookieName = () => (secureCookies() ? '__Secure-next-auth.session-token' : 'next-auth.session-token');

// The provider module is CommonJS with `exports.default`: bundlers unwrap it, plain Node ESM does not.
const Credentials: typeof CredentialsImport = typeof CredentialsImport === 'function'
  ? CredentialsImport
  : (CredentialsImport as unknown as { default: typeof CredentialsImport }).default;

/** next-auth options: one credentials provider, JWT sessions carrying id, name and role. */
export function createAuthOptions(deps: { prisma: Db; secret: string }): NextAuthOptions {
  const provider = Credentials({
    id: 'credentials',
    name: 'Tributary',
    credentials: { username: { label: 'User', type: 'text' }, password: { label: 'Password', type: 'password' } },
    authorize: async (c) => {
      if (!c?.username || !c.password) return null;
      const u = await verifyCredentials(deps.prisma, c.username, c.password);
      return u ? { id: u.id, name: u.name, role: u.role } : null;
    },
  });
  return {
    secret: deps.secret,
    session: { strategy: 'jwt', maxAge: SESSION_MAX_AGE_S },
    pages: { signIn: '/login', error: '/login' },
    useSecureCookies: secureCookies(),
    providers: [provider],
    callbacks: {
      jwt: async ({ token, user }) => {
        if (user) {
          token.sub = user.id;
          token.name = user.name;
          (token as { role?: string }).role = (user as { role?: string }).role;
        }
        return token;
      },
      session: async ({ session, token }) => {
        const s = session as typeof session & { user: { id?: string; role?: string } };
        s.user = { ...s.user, id: token.sub, name: token.name, role: (token as { role?: string }).role };
        return s;
      },
    },
  };
}

function parseCookies(header: string | null | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i < 0) continue;
    const k = part.slice(0, i).trim();
    if (k) out.set(k, decodeURIComponent(part.slice(i + 1).trim()));
  }
  return out;
}

/**
 * Read the next-auth session cookie (whole, or split in `.0`, `.1`… chunks)
 * from a Cookie header; null when absent, expired or forged.
 */
export async function readSession(cookieHeader: string | null | undefined, secret: string): Promise<SessionUser | null> {
  const cookies = parseCookies(cookieHeader);
  const name = cookieName();
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
    return { id: jwt.sub, name: String(jwt.name ?? ''), role };
  } catch {
    return null;
  }
}
