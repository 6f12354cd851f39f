import { z } from 'zod';
import { AppError } from '../errors';
import { roleAtLeast, type Role } from '../auth/roles';
import { authenticate, type Principal } from './authenticate';
import { readJsonBody, DEFAULT_MAX_BODY_BYTES } from './body';
import { assertCleanRequestHead } from '../errors/bad-bytes';
import type { ServerDeps } from './deps';
import { toErrorResponse, zodField } from './errors';
import { parseIdempotencyKey, requestFingerprint, type IdempotencyRequest } from '../jobs/idempotency';

export interface HandlerSpec<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType> {
  /** Least role allowed; `public` needs no credentials. (Default: viewer) */
  role?: Role | 'public';
  /** Schema of the dynamic route segments (`[id]` → `{ id }`). (Default: none) */
  params?: P;
  /** Schema of the query string, as an object of strings. (Default: none) */
  query?: Q;
  /** Schema of the JSON body; a route without one ignores its body. (Default: none) */
  body?: B;
  /** Largest accepted body. (Default: 1 MiB) */
  maxBodyBytes?: number;
  /** One line for the API reference. (Default: `METHOD path`) */
  summary?: string;
  /** Longer text for the API reference. (Default: none) */
  description?: string;
  /** Schema of a successful answer, for the API reference. (Default: any JSON) */
  response?: z.ZodType;
  /** Status of a successful answer. (Default: 200) */
  status?: number;
  /**
   * The route creates a run: it honours an `Idempotency-Key` header (handed
   * to the handler as `idempotency`), and may answer 429 with Retry-After when
   * the queue is full; the API reference says both. (Default: false)
   */
  enqueues?: boolean;
}

export interface HandlerContext<P, Q, B> {
  req: Request;
  deps: ServerDeps;
  /** Null only on `public` routes. */
  principal: Principal;
  params: P;
  query: Q;
  body: B;
  /** The request's `Idempotency-Key`, scoped to its user and fingerprinted (routes with `enqueues` only). */
  idempotency?: IdempotencyRequest;
}

type NextRouteContext = { params: Promise<Record<string, string | string[] | undefined>> };

function parsePart<S extends z.ZodType>(schema: S, value: unknown, part: 'params' | 'query' | 'body'): z.infer<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  // Body fields are named as the client wrote them (`kind`, `params.mode`); others get their part as prefix.
  const field = zodField(issue, part === 'body' ? undefined : part) || part;
  const code = part === 'params' ? 'not_found' : 'validation';
  throw new AppError(code, `${field}: ${issue.message}`, { field: part === 'params' ? undefined : field });
}

/** A JSON response with a status other than 200 (e.g. 202 for an enqueued job). */
export function json(data: unknown, status = 200, headers?: HeadersInit): Response {
  return Response.json(data, { status, headers });
}

/**
 * The 202 of a route that created (or, for a repeated Idempotency-Key, found)
 * a run: a replay is the same answer with `Idempotent-Replayed: true`, as
 * Stripe sends it.
 */
export function accepted(data: unknown, location: string, replayed: boolean): Response {
  return json(data, 202, { Location: location, ...(replayed ? { 'Idempotent-Replayed': 'true' } : {}) });
}

/** A route handler as Next.js calls it, carrying its spec for the API reference (lib/api/openapi.ts). */
export type ApiRouteHandler = ((req: Request, routeCtx?: NextRouteContext) => Promise<Response>) & { spec: HandlerSpec<z.ZodType, z.ZodType, z.ZodType> };

/** The `apiHandler` of a process, bound to how it reaches its server deps. */
export type ApiHandler = <
  P extends z.ZodType = z.ZodType<Record<string, never>>,
  Q extends z.ZodType = z.ZodType<Record<string, never>>,
  B extends z.ZodType = z.ZodType<undefined>,
>(spec: HandlerSpec<P, Q, B>, fn: (ctx: HandlerContext<z.infer<P>, z.infer<Q>, z.infer<B>>) => Promise<unknown>) => ApiRouteHandler;

/**
 * Make the process's `apiHandler`, handed its server deps by the web process's
 * edge (`app/_server/deps.ts` binds it; routes import `apiHandler` from there).
 * @param serverDeps opens (or returns) the process's deps; called on first use in a request
 */
export function createApiHandler(serverDeps: () => ServerDeps): ApiHandler {
  return (spec, fn) => apiHandler(serverDeps, spec, fn);
}

/**
 * The one wrapper for `/api/v1` route handlers: authenticates (session cookie
 * or bearer token), checks the role, parses params/query/body with zod,
 * limits the body size, and maps every error to `{ error: { code, message, field? } }`.
 * The handler returns data (sent as 200 JSON) or a Response.
 *
 * @example
 * // GET /api/v1/jobs/:id - one run with its log
 * export const GET = apiHandler({ params: z.object({ id: z.string() }) }, async ({ deps, params }) => …);
 */
function apiHandler<
  P extends z.ZodType = z.ZodType<Record<string, never>>,
  Q extends z.ZodType = z.ZodType<Record<string, never>>,
  B extends z.ZodType = z.ZodType<undefined>,
>(serverDeps: () => ServerDeps, spec: HandlerSpec<P, Q, B>, fn: (ctx: HandlerContext<z.infer<P>, z.infer<Q>, z.infer<B>>) => Promise<unknown>): ApiRouteHandler {
  const handle = async function handle(req: Request, routeCtx?: NextRouteContext): Promise<Response> {
    try {
      // Path segments, query and cookies before anything reads them (the session reader decodes cookies).
      assertCleanRequestHead(req);
      // Opened on first use: a public route that needs no database (the OpenAPI document) answers without one.
      let opened: ServerDeps | undefined;
      const getDeps = () => (opened ??= serverDeps());
      const least = spec.role ?? 'viewer';
      let principal: Principal | null = null;
      if (least !== 'public' || req.headers.has('authorization')) principal = await authenticate(req, getDeps());
      if (least !== 'public') {
        if (!principal) throw new AppError('unauthorized', 'authentication required: sign in, or send `Authorization: Bearer <API token>`');
        if (!roleAtLeast(principal.role, least)) throw new AppError('forbidden', `this needs the ${least} role; you are ${principal.role}`);
      }
      const rawParams = (await routeCtx?.params) ?? {};
      const params = spec.params ? parsePart(spec.params, rawParams, 'params') : rawParams;
      const url = new URL(req.url);
      const query = spec.query ? parsePart(spec.query, Object.fromEntries(url.searchParams), 'query') : {};
      let body: unknown = undefined;
      if (spec.body) body = parsePart(spec.body, await readJsonBody(req, spec.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES), 'body');
      const key = spec.enqueues ? parseIdempotencyKey(req.headers.get('idempotency-key')) : undefined;
      // Per user (a session and the user's tokens share keys); the fingerprint is of what was asked, after parsing.
      const idempotency = key && principal
        ? { scope: `user:${principal.userId}`, key, fingerprint: requestFingerprint(req.method, url.pathname, body ?? null) }
        : undefined;
      const handlerCtx = { req, principal: principal as Principal, params, query, body, idempotency, get deps() { return getDeps(); } };
      const out = await fn(handlerCtx as HandlerContext<z.infer<P>, z.infer<Q>, z.infer<B>>);
      if (out instanceof Response) return out;
      return Response.json(out ?? null, { headers: { 'Cache-Control': 'no-store' } });
    } catch (e) {
      return toErrorResponse(e);
    }
  };
  // The spec travels with the handler: lib/api/openapi.ts documents routes from it.
  return Object.assign(handle, { spec: spec as unknown as HandlerSpec<z.ZodType, z.ZodType, z.ZodType> });
}
