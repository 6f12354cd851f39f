import type pg from 'pg';
import type { Env } from '../config/env';
import type { Db } from '../db/prisma';
import { authenticateApiToken, roleAtLeast } from '../auth';
import { openLake, type Lake } from '../lake';
import { flatIcebergError, forbidden, icebergError, notAuthorized, unsupported } from './errors';
import { DB_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from '../errors/db-unavailable';
import { storageProperties } from './storage-properties';
import { AppError } from '../errors';
import { assertCleanUrl } from '../errors/bad-bytes';

/** What the catalog works with: the web process's handles (lib/api's ServerDeps fits). */
export interface IcebergRestDeps { env: Env; pool: pg.Pool; prisma: Db }

/** The operations served with data, as the spec's `endpoints` list names them (clients check it before calling). */
export const ENDPOINTS = [
  'GET /v1/{prefix}/namespaces',
  'GET /v1/{prefix}/namespaces/{namespace}',
  'HEAD /v1/{prefix}/namespaces/{namespace}',
  'GET /v1/{prefix}/namespaces/{namespace}/tables',
  'GET /v1/{prefix}/namespaces/{namespace}/tables/{table}',
  'HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table}',
  'GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/credentials',
  'POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics',
  'GET /v1/{prefix}/namespaces/{namespace}/views',
  'GET /v1/{prefix}/namespaces/{namespace}/views/{view}',
  'HEAD /v1/{prefix}/namespaces/{namespace}/views/{view}',
];

// Multi-level namespaces travel as one path segment (or `parent=` value) joined by the unit
// separator (spec: `%1F`, the default `namespace-separator`); Tributary's lake names them with dots (`a.b`).
const NS_SEP = '\u001f';
const levels = (ns: string) => ns.split('.');
const fromWire = (s: string) => s.split(NS_SEP).join('.');
/** Properties the SQL catalog keeps for itself (pyiceberg's `exists` marker), not the namespace's own. */
const INTERNAL_PROPERTIES = new Set(['exists']);

const lakes = new WeakMap<pg.Pool, Lake>();
function lakeOf(deps: IcebergRestDeps): Lake {
  let l = lakes.get(deps.pool);
  if (!l) lakes.set(deps.pool, (l = openLake({ pool: deps.pool, warehouse: deps.env.warehouse, s3: deps.env.s3 })));
  return l;
}

const noContent = (status = 204) => new Response(null, { status });

interface Ctx {
  url: URL;
  deps: IcebergRestDeps;
  who: NonNullable<Awaited<ReturnType<typeof authenticateApiToken>>>;
  lake: Lake;
  /** Path parameters by the spec's names (`namespace` already in the lake's dotted form). */
  p: Record<string, string>;
}
type Handler = (c: Ctx) => Promise<Response> | Response;

/**
 * A namespace exists when it was created or holds tables, or when any namespace below it does:
 * `a.b` makes `a` listable, loadable and HEAD-able, as the spec's hierarchy implies (a client
 * walks from the top-level list down).
 */
async function namespaceExists(lake: Lake, ns: string): Promise<boolean> {
  return (await lake.listNamespaces()).some((n) => n === ns || n.startsWith(`${ns}.`));
}
const noNamespace = (ns: string) => icebergError(404, 'NoSuchNamespaceException', `namespace ${ns} does not exist`);
const noTable = (ident: string) => icebergError(404, 'NoSuchTableException', `table ${ident} does not exist`);
const identOf = (c: Ctx) => `${c.p.namespace}.${c.p.table}`;

async function listNamespaces(c: Ctx): Promise<Response> {
  const parent = fromWire(c.url.searchParams.get('parent') ?? '');
  const all = await c.lake.listNamespaces();
  if (parent && !all.some((n) => n === parent || n.startsWith(`${parent}.`))) return noNamespace(parent);
  const depth = parent ? levels(parent).length : 0;
  const below = parent ? all.filter((n) => n.startsWith(`${parent}.`)) : all;
  const out = [...new Set(below.map((n) => levels(n).slice(0, depth + 1).join('.')))].sort();
  return Response.json({ namespaces: out.map(levels) });
}

async function loadNamespace(c: Ctx): Promise<Response> {
  const ns = c.p.namespace;
  const all = await c.lake.listNamespaces();
  if (!all.some((n) => n === ns || n.startsWith(`${ns}.`))) return noNamespace(ns);
  // A parent that exists only through its children has no properties of its own.
  const props = all.includes(ns) ? await c.lake.namespaceProperties(ns) : {};
  return Response.json({ namespace: levels(ns), properties: Object.fromEntries(Object.entries(props).filter(([k]) => !INTERNAL_PROPERTIES.has(k))) });
}

async function listTables(c: Ctx): Promise<Response> {
  const ns = c.p.namespace;
  if (!(await namespaceExists(c.lake, ns))) return noNamespace(ns);
  const identifiers = (await c.lake.listTables(ns)).filter((id) => id.slice(0, id.lastIndexOf('.')) === ns)
    .map((id) => ({ namespace: levels(ns), name: id.slice(id.lastIndexOf('.') + 1) }));
  return Response.json({ identifiers });
}

async function loadTable(c: Ctx): Promise<Response> {
  const ident = identOf(c);
  if (!(await c.lake.tableExists(ident))) return noTable(ident);
  const t = await c.lake.loadTable(ident);
  const loc = t.metadataLocation();
  // The metadata file as written, not re-serialised: 64-bit snapshot ids stay exact.
  const raw = new TextDecoder().decode(await c.lake.storage.read(loc));
  const body = `{"metadata-location":${JSON.stringify(loc)},"metadata":${raw},"config":${JSON.stringify(storageOf(c))}}`;
  return new Response(body, { status: 200, headers: { 'content-type': 'application/json', 'cache-control': 'no-store' } });
}

/**
 * loadCredentials: the object store's keys for the table's location, for a vending token on an
 * s3:// warehouse (the same keys `loadTable` hands it); an empty list otherwise, so the client
 * uses its own credentials (a file:// warehouse has none to give).
 */
async function loadCredentials(c: Ctx): Promise<Response> {
  const ident = identOf(c);
  if (!(await c.lake.tableExists(ident))) return noTable(ident);
  const config = storageOf(c);
  const vended = 's3.secret-access-key' in config;
  const location = vended ? (await c.lake.loadTable(ident)).location : '';
  return Response.json({ 'storage-credentials': vended ? [{ prefix: location, config }] : [] });
}

// `who` is read from the token and its user on every request: a vending token whose user has
// since been demoted (an admin made a viewer) has vendCredentials false here (lib/auth/tokens.ts).
const storageOf = (c: Ctx) => storageProperties(c.deps.env.warehouse, c.deps.env.s3, c.who.vendCredentials);

const headTable: Handler = async (c) => noContent((await c.lake.tableExists(identOf(c))) ? 204 : 404);
const headNamespace: Handler = async (c) => noContent((await namespaceExists(c.lake, c.p.namespace)) ? 204 : 404);
/** Listing an existing namespace's functions or views: Tributary keeps none. */
const noFunctions: Handler = async (c) => ((await namespaceExists(c.lake, c.p.namespace)) ? Response.json({ identifiers: [] }) : noNamespace(c.p.namespace));
// listViews declares its 404 as a bare ErrorModel (see flatIcebergError).
const noViews: Handler = async (c) => ((await namespaceExists(c.lake, c.p.namespace))
  ? Response.json({ identifiers: [] }) : flatIcebergError(404, 'NoSuchNamespaceException', `namespace ${c.p.namespace} does not exist`));

interface Route { method: string; path: string[]; run: Handler }
const NS = '{namespace}', T = '{table}';
const r = (method: string, path: string, run: Handler): Route => ({ method, path: path.split('/').filter(Boolean), run });

/**
 * Every operation of the spec (open-api/rest-catalog-open-api.yaml, without the optional
 * `{prefix}`: `config` announces none), each answering only statuses the spec declares for it.
 * Writes are refused: 406 where the operation declares it, else 403.
 */
const ROUTES: Route[] = [
  r('GET', 'config', (c) => Response.json({ defaults: storageOf(c), overrides: {}, endpoints: ENDPOINTS })),
  r('GET', 'namespaces', listNamespaces),
  r('POST', 'namespaces', () => unsupported('creating namespaces')),
  r('GET', `namespaces/${NS}`, loadNamespace),
  r('HEAD', `namespaces/${NS}`, headNamespace),
  r('DELETE', `namespaces/${NS}`, () => forbidden('dropping namespaces')),
  r('POST', `namespaces/${NS}/properties`, () => unsupported('updating namespace properties')),
  r('GET', `namespaces/${NS}/tables`, listTables),
  r('POST', `namespaces/${NS}/tables`, () => forbidden('creating tables')),
  r('POST', `namespaces/${NS}/register`, () => forbidden('registering tables')),
  r('GET', `namespaces/${NS}/tables/${T}`, loadTable),
  r('HEAD', `namespaces/${NS}/tables/${T}`, headTable),
  r('POST', `namespaces/${NS}/tables/${T}`, () => forbidden('committing to tables')),
  r('DELETE', `namespaces/${NS}/tables/${T}`, () => forbidden('dropping tables')),
  r('POST', `namespaces/${NS}/tables/${T}/unregister`, () => forbidden('unregistering tables')),
  r('GET', `namespaces/${NS}/tables/${T}/credentials`, loadCredentials),
  r('POST', `namespaces/${NS}/tables/${T}/sign`, () => forbidden('remote signing')),
  r('POST', `namespaces/${NS}/tables/${T}/metrics`, async (c) => ((await c.lake.tableExists(identOf(c))) ? noContent(204) : noTable(identOf(c)))),
  // Server-side scan planning is not offered (406 on planTableScan), so no plan or task ever exists.
  r('POST', `namespaces/${NS}/tables/${T}/plan`, () => unsupported('server-side scan planning')),
  r('GET', `namespaces/${NS}/tables/${T}/plan/{plan-id}`, (c) => icebergError(404, 'NoSuchPlanIdException', `plan ${c.p['plan-id']} does not exist (no server-side planning)`)),
  r('DELETE', `namespaces/${NS}/tables/${T}/plan/{plan-id}`, (c) => icebergError(404, 'NoSuchPlanIdException', `plan ${c.p['plan-id']} does not exist (no server-side planning)`)),
  r('POST', `namespaces/${NS}/tables/${T}/tasks`, () => icebergError(404, 'NoSuchPlanTaskException', 'plan task does not exist (no server-side planning)')),
  r('POST', 'tables/rename', () => unsupported('renaming tables')),
  r('POST', 'transactions/commit', () => forbidden('committing transactions')),
  r('GET', `namespaces/${NS}/functions`, noFunctions),
  r('GET', `namespaces/${NS}/functions/{function}`, (c) => icebergError(404, 'NoSuchFunctionException', `function ${c.p.namespace}.${c.p.function} does not exist`)),
  // Views: Tributary keeps none; engines list them while browsing.
  r('GET', `namespaces/${NS}/views`, noViews),
  r('POST', `namespaces/${NS}/views`, () => forbidden('creating views')),
  r('GET', `namespaces/${NS}/views/{view}`, (c) => flatIcebergError(404, 'NoSuchViewException', `view ${c.p.namespace}.${c.p.view} does not exist`)),
  r('HEAD', `namespaces/${NS}/views/{view}`, () => noContent(404)),
  r('POST', `namespaces/${NS}/views/{view}`, () => forbidden('replacing views')),
  r('DELETE', `namespaces/${NS}/views/{view}`, () => forbidden('dropping views')),
  r('POST', 'views/rename', () => unsupported('renaming views')),
  r('POST', `namespaces/${NS}/register-view`, () => forbidden('registering views')),
];

function match(route: Route, parts: string[]): Record<string, string> | null {
  if (route.path.length !== parts.length) return null;
  const p: Record<string, string> = {};
  for (let i = 0; i < parts.length; i++) {
    const seg = route.path[i];
    if (seg.startsWith('{')) p[seg.slice(1, -1)] = seg === NS ? fromWire(parts[i]) : parts[i];
    else if (seg !== parts[i]) return null;
  }
  return p;
}

/**
 * One request to the Iceberg REST catalog (`/iceberg/v1/…`, routes of the
 * Apache Iceberg REST catalog OpenAPI) → its answer. Read-only: config,
 * namespaces (multi-level), tables (list, load, exists, credentials), metrics
 * accepted and dropped, empty views and functions; every write answers the
 * spec's declared refusal (406 or 403). Bearer API tokens only (viewer role
 * or higher); secrets of an s3:// warehouse go only to tokens created with
 * `vendCredentials` whose user still has the role the token was made with.
 */
export async function handleIcebergRest(req: Request, deps: IcebergRestDeps): Promise<Response> {
  try {
    const url = new URL(req.url);
    const m = /^(?:.*?\/iceberg)?\/v1(\/.*)?$/.exec(url.pathname);
    if (!m) return icebergError(404, 'NotFoundException', `no route ${url.pathname} (the catalog lives under /iceberg/v1)`);
    // A segment or query value that does not decode (a broken escape, invalid UTF-8, NUL) is the client's error.
    try { assertCleanUrl(req.url); } catch (e) {
      if (!(e instanceof AppError)) throw e;
      return Response.json({ error: { message: `iceberg-rest: ${e.message}`, type: 'BadRequestException', code: 400, field: e.field } }, { status: 400 });
    }
    const parts = (m[1] ?? '').split('/').filter(Boolean).map(decodeURIComponent);
    const method = req.method.toUpperCase();

    // The deprecated OAuth2 token exchange: Tributary's tokens are created in the panel or CLI, not here.
    if (parts[0] === 'oauth' && parts[1] === 'tokens' && parts.length === 2) {
      if (method !== 'POST') return methodNotAllowed(method, ['POST']);
      return Response.json({ error: 'unsupported_grant_type', error_description: 'iceberg-rest: no token endpoint; create an API token (`tributary tokens create`) and send it as `token`' }, { status: 400 });
    }

    const routes = ROUTES.map((route) => ({ route, p: match(route, parts) })).filter((x) => x.p);
    if (!routes.length) return icebergError(404, 'NotFoundException', `no route /v1/${parts.join('/')}`);

    const authz = req.headers.get('authorization');
    if (!authz) return notAuthorized('send `Authorization: Bearer <API token>` (create one with `tributary tokens create`)');
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authz);
    if (!bearer) return notAuthorized('Authorization header must be `Bearer <API token>`');
    const who = await authenticateApiToken(deps.prisma, bearer[1]);
    if (!who) return notAuthorized('API token is unknown or revoked');
    if (!roleAtLeast(who.role, 'viewer')) return icebergError(403, 'ForbiddenException', `the viewer role is needed; the token has ${who.role}`);

    const hit = routes.find((x) => x.route.method === method);
    // A path the spec defines, with a method it does not: HTTP's 405 (no operation exists to declare a status).
    if (!hit) return methodNotAllowed(method, routes.map((x) => x.route.method));
    return await hit.route.run({ url, deps, who, lake: lakeOf(deps), p: hit.p! });
  } catch (e) {
    // The catalog lives in Postgres: while it is unreachable, the spec's 503 tells clients to come back.
    if (isDatabaseUnavailable(e)) {
      return icebergError(503, 'ServiceUnavailableException', `database unavailable: the catalog cannot reach its database right now; retry in ${DB_RETRY_AFTER_SECONDS} s`, { 'Retry-After': String(DB_RETRY_AFTER_SECONDS) });
    }
    return icebergError(500, 'InternalServerError', (e as Error).message ?? String(e));
  }
}

function methodNotAllowed(method: string, allowed: string[]): Response {
  return icebergError(405, 'MethodNotAllowedException', `${method} is not an operation of this route (allowed: ${allowed.join(', ')})`, { Allow: allowed.join(', ') });
}
