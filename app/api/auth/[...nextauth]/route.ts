// GET|POST /api/auth/* - next-auth: credentials sign-in, sign-out, session, CSRF
import NextAuth from 'next-auth';
import { createAuthOptions } from '@/lib/auth';
import { getServerDeps } from '@/lib/api';

type Ctx = { params: Promise<{ nextauth: string[] }> };

let handler: ((req: Request, ctx: Ctx) => Promise<Response>) | null = null;

// Built on first request: the database and the secret exist only at run time, not at build.
function authHandler() {
  if (!handler) {
    const { prisma, secret } = getServerDeps();
    handler = NextAuth(createAuthOptions({ prisma, secret })) as unknown as (req: Request, ctx: Ctx) => Promise<Response>;
  }
  return handler;
}

export async function GET(req: Request, ctx: Ctx) { return authHandler()(req, ctx); }
export async function POST(req: Request, ctx: Ctx) { return authHandler()(req, ctx); }
