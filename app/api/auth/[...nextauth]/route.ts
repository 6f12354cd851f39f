// GET|POST /api/auth/* - next-auth: credentials sign-in (throttled: 429 + Retry-After), sign-out, session, CSRF
import NextAuth from 'next-auth';
import { clientAddress, createAuthOptions, LOCKED_ERROR, recordRefusedLogin } from '@/lib/auth';
import { publicOrigin, toErrorResponse } from '@/lib/api';
import { serverDeps } from '@/app/_server/deps';
import { assertCleanRequestHead, decodeComponent, decodeUtf8 } from '@/lib/errors/bad-bytes';
import { consoleSink, createLogger, type Logger } from '@/lib/log';

type Ctx = { params: Promise<{ nextauth: string[] }> };

let handler: ((req: Request, ctx: Ctx) => Promise<Response>) | null = null;
let authLogger: Logger | null = null;
const logger = () => (authLogger ??= createLogger(consoleSink(), { level: serverDeps().env.LOG_LEVEL, fields: { proc: 'web', scope: 'auth' } }));

// Built on first request: the database and the secret exist only at run time, not at build.
function authHandler() {
  if (!handler) {
    const { prisma, secret, throttle, secureCookies } = serverDeps();
    handler = NextAuth(createAuthOptions({ prisma, secret, throttle, secureCookies, logger: logger() })) as unknown as (req: Request, ctx: Ctx) => Promise<Response>;
  }
  return handler;
}

function tooMany(retryAfterSeconds: number): Response {
  const minutes = Math.ceil(retryAfterSeconds / 60);
  const message = `too many failed sign-ins: try again in ${retryAfterSeconds < 90 ? `${retryAfterSeconds} s` : `${minutes} min`}`;
  const url = new URL(`/login?error=${LOCKED_ERROR}:${retryAfterSeconds}`, publicOrigin(serverDeps().env)).toString();
  // `url` is what next-auth's signIn() reads its error from (`TooManyAttempts:<seconds>`, the only
  // place the login form can read the wait from); `error` is the API's error body.
  return Response.json({ url, error: { code: 'rate_limited', message } }, {
    status: 429, headers: { 'Retry-After': String(retryAfterSeconds), 'Cache-Control': 'no-store' },
  });
}

/**
 * The sign-in form (`application/x-www-form-urlencoded`) checked strictly: a
 * field that does not decode or holds NUL (`username=%00`) is a 400 naming it,
 * before the throttle and the user lookup send it to Postgres.
 */
async function cleanForm(req: Request): Promise<URLSearchParams> {
  const text = decodeUtf8(new Uint8Array(await req.clone().arrayBuffer()));
  for (const pair of text.split('&')) {
    if (!pair) continue;
    const eq = pair.indexOf('=');
    const name = decodeComponent(eq < 0 ? pair : pair.slice(0, eq), 'body', true);
    if (eq >= 0) decodeComponent(pair.slice(eq + 1), name, true);
  }
  return new URLSearchParams(text);
}

export async function GET(req: Request, ctx: Ctx) {
  try { assertCleanRequestHead(req); } catch (e) { return toErrorResponse(e); }
  return authHandler()(req, ctx);
}

export async function POST(req: Request, ctx: Ctx) {
  const { nextauth } = await ctx.params;
  let form: URLSearchParams;
  try {
    assertCleanRequestHead(req);
    form = await cleanForm(req);
  } catch (e) { return toErrorResponse(e); }
  if (nextauth?.[0] !== 'callback' || nextauth[1] !== 'credentials') return authHandler()(req, ctx);
  // A locked account or address is answered 429 before next-auth (and bcrypt) runs.
  const name = form.get('username') ?? '';
  const address = clientAddress(req.headers);
  const { throttle, prisma } = serverDeps();
  const before = name ? await throttle.check(name, address) : null;
  if (before) {
    await recordRefusedLogin({ prisma, logger: logger() }, { name, address }, before);
    return tooMany(before.retryAfterSeconds);
  }
  const res = await authHandler()(req, ctx);
  // This very attempt may have caused the lock: say so with 429 too.
  if (res.status !== 200 || (await res.clone().text()).includes(LOCKED_ERROR)) {
    const after = name ? await throttle.check(name, address) : null;
    if (after) return tooMany(after.retryAfterSeconds);
  }
  return res;
}
