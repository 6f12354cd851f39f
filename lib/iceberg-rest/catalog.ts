import type pg from 'pg';
import type { Env } from '../config/env';
import type { Db } from '../db/prisma';
import { authenticateApiToken, roleAtLeast } from '../auth';
import { openLake, type Lake } from '../lake';
import { flatIcebergError, forbidden, icebergError, notAuthorized, unsupported } from './errors';
import { DB_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from '../errors/db-unavailable';
import { storageProperties } from './storage-properties';
import { AppError } from '../errors';
import { assertCleanUrl, decodeUtf8, parseCleanJson } from '../errors/bad-bytes';
import { consoleSink, createLogger, type Logger } from '../log';
import { gunzipSync } from 'node:zlib';

/** What the catalog works with: the web process's handles (lib/api's ServerDeps fits). */
export interface IcebergRestDeps {
  env: Env; pool: pg.Pool; prisma: Db;
  /** Where unexpected errors (answered 500) are logged, with the request's method and path. (Default: stderr, scope `iceberg-rest`) */
  logger?: Logger;
}

const processLogger: Logger = createLogger(consoleSink(), { fields: { scope: 'iceberg-rest' } });

/**
 * The operations announced in `/v1/config`'s `endpoints` (clients check it before calling; pyiceberg
 * and iceberg-java refuse locally what is not listed): every read served with data, and the two
 * writes whose "already exists" answer the clients' if-not-exists flows rely on (createNamespace,
 * createTable: 409 for an existing one, the read-only refusal only for a real creation).
 */
export const ENDPOINTS = [
  'GET /v1/{prefix}/namespaces',
  'POST /v1/{prefix}/namespaces',
  'GET /v1/{prefix}/namespaces/{namespace}',
  'HEAD /v1/{prefix}/namespaces/{namespace}',
  'GET /v1/{prefix}/namespaces/{namespace}/tables',
  'POST /v1/{prefix}/namespaces/{namespace}/tables',
  'GET /v1/{prefix}/namespaces/{namespace}/tables/{table}',
  'HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table}',
  'GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/credentials',
  'POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics',
  'GET /v1/{prefix}/namespaces/{namespace}/views',
  'GET /v1/{prefix}/namespaces/{namespace}/views/{view}',
  'HEAD /v1/{prefix}/namespaces/{namespace}/views/{view}',
  'GET /v1/{prefix}/namespaces/{namespace}/functions',
  'GET /v1/{prefix}/namespaces/{namespace}/functions/{function}',
];

// Multi-level namespaces travel as one path segment (or `parent=` value) joined by the unit
// separator (spec: `%1F`, the default `namespace-separator`); only it separates levels.
// Tributary's lake names them with dots (`a.b`), so a level that itself holds a dot (or is
// empty) names no namespace the lake can hold: it is answered as missing, never split.
const NS_SEP = '\u001f';
const levels = (ns: string) => ns.split('.');
/** The lake's dotted name for these levels, or null when no namespace of the lake can have them. */
const lakeNamespace = (lv: string[]): string | null => (lv.length && lv.every((l) => l && !l.includes('.')) ? lv.join('.') : null);
/** Properties the SQL catalog keeps for itself (pyiceberg's `exists` marker), not the namespace's own. */
const INTERNAL_PROPERTIES = new Set(['exists']);
/** Format versions of the Iceberg table spec (1, 2, 3): the metadata of any of them is served as it is. */
const FORMAT_VERSIONS = new Set([1, 2, 3]);

const lakes = new WeakMap<pg.Pool, Lake>();
function lakeOf(deps: IcebergRestDeps): Lake {
  let l = lakes.get(deps.pool);
  if (!l) lakes.set(deps.pool, (l = openLake({ pool: deps.pool, warehouse: deps.env.warehouse, s3: deps.env.s3 })));
  return l;
}

const noContent = (status = 204) => new Response(null, { status });

interface Ctx {
  req: Request;
  url: URL;
  deps: IcebergRestDeps;
  who: NonNullable<Awaited<ReturnType<typeof authenticateApiToken>>>;
  lake: Lake;
  /** Path parameters by the spec's names, decoded (`namespace` with its levels joined by `.`, for messages). */
  p: Record<string, string>;
  /** `{namespace}` as the lake names it, or null when it cannot name one of the lake's namespaces. */
  ns: string | null;
}
type Handler = (c: Ctx) => Promise<Response> | Response;

/**
 * A namespace exists when it was created or holds tables, or when any namespace below it does:
 * `a.b` makes `a` listable, loadable and HEAD-able, as the spec's hierarchy implies (a client
 * walks from the top-level list down).
 */
async function namespaceExists(lake: Lake, ns: string | null): Promise<boolean> {
  return ns !== null && (await lake.listNamespaces()).some((n) => n === ns || n.startsWith(`${ns}.`));
}
/** The table's current metadata file, or null: no such table (a view's row is none), or a name the lake cannot hold. */
const tableFile = (lake: Lake, ns: string | null, name: string) => (ns !== null && name && !name.includes('.') ? lake.tableMetadataLocation(`${ns}.${name}`) : Promise.resolve(null));
const noNamespace = (ns: string) => icebergError(404, 'NoSuchNamespaceException', `namespace ${ns} does not exist`);
const noTable = (ident: string) => icebergError(404, 'NoSuchTableException', `table ${ident} does not exist`);
const identOf = (c: Ctx) => `${c.p.namespace}.${c.p.table}`;
const fileOf = (c: Ctx) => tableFile(c.lake, c.ns, c.p.table);
const badRequest = (message: string) => icebergError(400, 'BadRequestException', message);
const alreadyExists = (what: string) => icebergError(409, 'AlreadyExistsException', `${what} already exists`);

/** A request body the spec declares: a JSON object, else the client's 400 (thrown, answered by handleIcebergRest). */
async function bodyOf(c: Ctx): Promise<Record<string, unknown>> {
  const text = decodeUtf8(new Uint8Array(await c.req.arrayBuffer()));
  if (!text.trim()) throw new AppError('bad_request', 'a JSON request body is required');
  const v = parseCleanJson(text);
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new AppError('bad_request', 'the request body must be a JSON object');
  return v as Record<string, unknown>;
}
const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');
const isName = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
/** The spec's `TableIdentifier` ({ namespace: string[], name }), or null when the body does not hold one. */
const identifierOf = (v: unknown): { levels: string[]; name: string } | null => {
  const o = v as { namespace?: unknown; name?: unknown } | null;
  return o && typeof o === 'object' && isStrings(o.namespace) && isName(o.name) ? { levels: o.namespace, name: o.name } : null;
};

async function listNamespaces(c: Ctx): Promise<Response> {
  const wire = c.url.searchParams.get('parent') ?? '';
  if (!wire) return Response.json({ namespaces: [...new Set((await c.lake.listNamespaces()).map((n) => levels(n)[0]))].sort().map((n) => [n]) });
  const parent = lakeNamespace(wire.split(NS_SEP));
  const all = await c.lake.listNamespaces();
  if (parent === null || !all.some((n) => n === parent || n.startsWith(`${parent}.`))) return noNamespace(wire.split(NS_SEP).join('.'));
  const depth = levels(parent).length;
  const out = [...new Set(all.filter((n) => n.startsWith(`${parent}.`)).map((n) => levels(n).slice(0, depth + 1).join('.')))].sort();
  return Response.json({ namespaces: out.map(levels) });
}

async function loadNamespace(c: Ctx): Promise<Response> {
  const ns = c.ns;
  const all = await c.lake.listNamespaces();
  if (ns === null || !all.some((n) => n === ns || n.startsWith(`${ns}.`))) return noNamespace(c.p.namespace);
  // A parent that exists only through its children has no properties of its own.
  const props = all.includes(ns) ? await c.lake.namespaceProperties(ns) : {};
  return Response.json({ namespace: levels(ns), properties: Object.fromEntries(Object.entries(props).filter(([k]) => !INTERNAL_PROPERTIES.has(k))) });
}

async function listTables(c: Ctx): Promise<Response> {
  const ns = c.ns;
  if (ns === null || !(await namespaceExists(c.lake, ns))) return noNamespace(c.p.namespace);
  const identifiers = (await c.lake.listTables(ns)).filter((id) => id.slice(0, id.lastIndexOf('.')) === ns)
    .map((id) => ({ namespace: levels(ns), name: id.slice(id.lastIndexOf('.') + 1) }));
  return Response.json({ identifiers });
}

/**
 * A table's metadata file as it is stored (gzip-compressed `.gz.metadata.json` unpacked), checked only
 * for what serving it needs: JSON, and a format version of the table spec (1, 2 or 3). The catalog
 * passes metadata through: tables other writers left in a shared catalog are served whatever their
 * version, and 64-bit snapshot ids stay exact because the text is not re-serialised.
 */
async function servedMetadata(lake: Lake, loc: string): Promise<{ raw: string; location: string }> {
  let bytes = await lake.storage.read(loc);
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = gunzipSync(bytes);
  const raw = new TextDecoder().decode(bytes);
  let m: { 'format-version'?: unknown; 'current-snapshot-id'?: unknown; location?: unknown };
  try { m = JSON.parse(raw); } catch (e) {
    throw new AppError('fatal', `iceberg-rest: metadata file ${loc} is not JSON: ${(e as Error).message}`);
  }
  if (!m || typeof m !== 'object' || !FORMAT_VERSIONS.has(m['format-version'] as number)) {
    throw new AppError('fatal', `iceberg-rest: metadata file ${loc} has format-version ${JSON.stringify(m?.['format-version'])}; a table's is 1, 2 or 3`);
  }
  // The spec's TableMetadata has `current-snapshot-id` an integer: "no current snapshot" is -1 (as iceberg-java
  // writes it), not the JSON null some writers leave (Tributary's own lake among them, for a table never
  // appended to). Only that value is rewritten, in the text: a JSON string holds no unescaped `"`, so the
  // pattern matches the key itself, and nothing else is re-serialised.
  const served = m['current-snapshot-id'] === null ? raw.replace(/"current-snapshot-id"\s*:\s*null/, '"current-snapshot-id":-1') : raw;
  return { raw: served, location: typeof m.location === 'string' ? m.location : '' };
}

async function loadTable(c: Ctx): Promise<Response> {
  const loc = await fileOf(c);
  if (!loc) return noTable(identOf(c));
  const { raw } = await servedMetadata(c.lake, loc);
  const body = `{"metadata-location":${JSON.stringify(loc)},"metadata":${raw},"config":${JSON.stringify(storageOf(c))}}`;
  return new Response(body, { status: 200, headers: { 'content-type': 'application/json', 'cache-control': 'no-store' } });
}

/**
 * loadCredentials: the object store's keys for the table's location, for a vending token on an
 * s3:// warehouse (the same keys `loadTable` hands it); an empty list otherwise, so the client
 * uses its own credentials (a file:// warehouse has none to give).
 */
async function loadCredentials(c: Ctx): Promise<Response> {
  const loc = await fileOf(c);
  if (!loc) return noTable(identOf(c));
  const config = storageOf(c);
  const vended = 's3.secret-access-key' in config;
  const location = vended ? (await servedMetadata(c.lake, loc)).location : '';
  return Response.json({ 'storage-credentials': vended ? [{ prefix: location, config }] : [] });
}

// `who` is read from the token and its user on every request: a vending token whose user has
// since been demoted (an admin made a viewer) has vendCredentials false here (lib/auth/tokens.ts).
const storageOf = (c: Ctx) => storageProperties(c.deps.env.warehouse, c.deps.env.s3, c.who.vendCredentials);

const headTable: Handler = async (c) => noContent((await fileOf(c)) ? 204 : 404);
const headNamespace: Handler = async (c) => noContent((await namespaceExists(c.lake, c.ns)) ? 204 : 404);
/** Listing an existing namespace's functions or views: Tributary keeps none. */
const noFunctions: Handler = async (c) => ((await namespaceExists(c.lake, c.ns)) ? Response.json({ identifiers: [] }) : noNamespace(c.p.namespace));
// listViews declares its 404 as a bare ErrorModel (see flatIcebergError).
const noViews: Handler = async (c) => ((await namespaceExists(c.lake, c.ns))
  ? Response.json({ identifiers: [] }) : flatIcebergError(404, 'NoSuchNamespaceException', `namespace ${c.p.namespace} does not exist`));
const noView = (c: Ctx) => flatIcebergError(404, 'NoSuchViewException', `view ${c.p.namespace}.${c.p.view} does not exist`);

// Writes. A read-only catalog still answers what the spec says about the objects named: 400 for a
// malformed body, 404 for a missing namespace or table, 409 for one that already exists. Only a
// request that would really have to write gets the refusal (406 where declared, else 403), so
// clients' "if not exists" flows (iceberg-js, pyiceberg) find the object and go on.

async function createNamespace(c: Ctx): Promise<Response> {
  const b = await bodyOf(c);
  if (!isStrings(b.namespace) || !b.namespace.length) return badRequest('`namespace` must be a non-empty array of strings');
  if (await namespaceExists(c.lake, lakeNamespace(b.namespace))) return alreadyExists(`namespace ${b.namespace.join('.')}`);
  return unsupported('creating namespaces');
}

async function updateProperties(c: Ctx): Promise<Response> {
  const b = await bodyOf(c);
  if (b.removals !== undefined && !isStrings(b.removals)) return badRequest('`removals` must be an array of strings');
  if (b.updates !== undefined && (!b.updates || typeof b.updates !== 'object' || Array.isArray(b.updates) || !Object.values(b.updates).every((v) => typeof v === 'string'))) {
    return badRequest('`updates` must be an object of strings');
  }
  if (!(await namespaceExists(c.lake, c.ns))) return noNamespace(c.p.namespace);
  return unsupported('updating namespace properties');
}

async function dropNamespace(c: Ctx): Promise<Response> {
  const ns = c.ns;
  if (ns === null || !(await namespaceExists(c.lake, ns))) return noNamespace(ns ?? c.p.namespace);
  // Even a writable catalog would refuse this one: it holds tables or namespaces.
  if ((await c.lake.listNamespaces()).some((n) => n.startsWith(`${ns}.`)) || (await c.lake.listTables(ns)).length) {
    return icebergError(409, 'NamespaceNotEmptyException', `namespace ${ns} is not empty`);
  }
  return forbidden('dropping namespaces');
}

/** createTable, registerTable: the namespace must exist, the name must be free; then the refusal. */
const createIn = (what: string, also: string) => async (c: Ctx): Promise<Response> => {
  const b = await bodyOf(c);
  if (!isName(b.name)) return badRequest('`name` must be a non-empty string');
  if (also === 'schema' ? !b.schema || typeof b.schema !== 'object' : !isName(b[also])) return badRequest(`\`${also}\` is required`);
  if (!(await namespaceExists(c.lake, c.ns))) return noNamespace(c.p.namespace);
  if (await tableFile(c.lake, c.ns, b.name)) return alreadyExists(`table ${c.p.namespace}.${b.name}`);
  return forbidden(what);
};

/** updateTable, dropTable, unregisterTable: the table must exist; then the refusal. */
const onTable = (what: string, body: boolean) => async (c: Ctx): Promise<Response> => {
  if (body) {
    const b = await bodyOf(c);
    if (!Array.isArray(b.requirements) || !Array.isArray(b.updates)) return badRequest('`requirements` and `updates` must be arrays');
  }
  if (!(await fileOf(c))) return noTable(identOf(c));
  return forbidden(what);
};

async function renameTable(c: Ctx): Promise<Response> {
  const b = await bodyOf(c);
  const from = identifierOf(b.source), to = identifierOf(b.destination);
  if (!from || !to) return badRequest('`source` and `destination` must be table identifiers ({ namespace: [..], name })');
  const show = (t: { levels: string[]; name: string }) => `${t.levels.join('.')}.${t.name}`;
  if (!(await tableFile(c.lake, lakeNamespace(from.levels), from.name))) return noTable(show(from));
  if (!(await namespaceExists(c.lake, lakeNamespace(to.levels)))) return noNamespace(to.levels.join('.'));
  if (await tableFile(c.lake, lakeNamespace(to.levels), to.name)) return alreadyExists(`table ${show(to)}`);
  return unsupported('renaming tables');
}

async function commitTransaction(c: Ctx): Promise<Response> {
  const b = await bodyOf(c);
  const changes = b['table-changes'];
  if (!Array.isArray(changes)) return badRequest('`table-changes` must be an array');
  for (const ch of changes as { identifier?: unknown }[]) {
    const id = identifierOf(ch?.identifier);
    if (!id) return badRequest('every table change needs its `identifier`');
    if (!(await tableFile(c.lake, lakeNamespace(id.levels), id.name))) return noTable(`${id.levels.join('.')}.${id.name}`);
  }
  return forbidden('committing transactions');
}

async function planTableScan(c: Ctx): Promise<Response> {
  await bodyOf(c);
  if (!(await fileOf(c))) return noTable(identOf(c));
  return unsupported('server-side scan planning');
}

/**
 * createView, registerView: the namespace must exist and no table may have the name; then the refusal.
 * createView declares its 404 and 409 as a bare ErrorModel (`flat`, see flatIcebergError).
 */
const viewIn = (what: string, flat: boolean) => async (c: Ctx): Promise<Response> => {
  const b = await bodyOf(c);
  if (!isName(b.name)) return badRequest('`name` must be a non-empty string');
  const error = flat ? flatIcebergError : icebergError;
  if (!(await namespaceExists(c.lake, c.ns))) return error(404, 'NoSuchNamespaceException', `namespace ${c.p.namespace} does not exist`);
  if (await tableFile(c.lake, c.ns, b.name)) return error(409, 'AlreadyExistsException', `table ${c.p.namespace}.${b.name} already exists`);
  return forbidden(what);
};

async function renameView(c: Ctx): Promise<Response> {
  const b = await bodyOf(c);
  const from = identifierOf(b.source), to = identifierOf(b.destination);
  if (!from || !to) return badRequest('`source` and `destination` must be view identifiers ({ namespace: [..], name })');
  return flatIcebergError(404, 'NoSuchViewException', `view ${from.levels.join('.')}.${from.name} does not exist`);
}

async function reportMetrics(c: Ctx): Promise<Response> {
  await bodyOf(c);
  return (await fileOf(c)) ? noContent(204) : noTable(identOf(c));
}

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
  r('POST', 'namespaces', createNamespace),
  r('GET', `namespaces/${NS}`, loadNamespace),
  r('HEAD', `namespaces/${NS}`, headNamespace),
  r('DELETE', `namespaces/${NS}`, dropNamespace),
  r('POST', `namespaces/${NS}/properties`, updateProperties),
  r('GET', `namespaces/${NS}/tables`, listTables),
  r('POST', `namespaces/${NS}/tables`, createIn('creating tables', 'schema')),
  r('POST', `namespaces/${NS}/register`, createIn('registering tables', 'metadata-location')),
  r('GET', `namespaces/${NS}/tables/${T}`, loadTable),
  r('HEAD', `namespaces/${NS}/tables/${T}`, headTable),
  r('POST', `namespaces/${NS}/tables/${T}`, onTable('committing to tables', true)),
  r('DELETE', `namespaces/${NS}/tables/${T}`, onTable('dropping tables', false)),
  r('POST', `namespaces/${NS}/tables/${T}/unregister`, onTable('unregistering tables', false)),
  r('GET', `namespaces/${NS}/tables/${T}/credentials`, loadCredentials),
  r('POST', `namespaces/${NS}/tables/${T}/sign`, () => forbidden('remote signing')),
  r('POST', `namespaces/${NS}/tables/${T}/metrics`, reportMetrics),
  // Server-side scan planning is not offered (406 on planTableScan), so no plan or task ever exists.
  r('POST', `namespaces/${NS}/tables/${T}/plan`, planTableScan),
  r('GET', `namespaces/${NS}/tables/${T}/plan/{plan-id}`, (c) => icebergError(404, 'NoSuchPlanIdException', `plan ${c.p['plan-id']} does not exist (no server-side planning)`)),
  r('DELETE', `namespaces/${NS}/tables/${T}/plan/{plan-id}`, (c) => icebergError(404, 'NoSuchPlanIdException', `plan ${c.p['plan-id']} does not exist (no server-side planning)`)),
  r('POST', `namespaces/${NS}/tables/${T}/tasks`, () => icebergError(404, 'NoSuchPlanTaskException', 'plan task does not exist (no server-side planning)')),
  r('POST', 'tables/rename', renameTable),
  r('POST', 'transactions/commit', commitTransaction),
  r('GET', `namespaces/${NS}/functions`, noFunctions),
  r('GET', `namespaces/${NS}/functions/{function}`, (c) => icebergError(404, 'NoSuchFunctionException', `function ${c.p.namespace}.${c.p.function} does not exist`)),
  // Views: Tributary serves none (a JdbcCatalog view row in the shared catalog is neither a table nor served as a view).
  r('GET', `namespaces/${NS}/views`, noViews),
  r('POST', `namespaces/${NS}/views`, viewIn('creating views', true)),
  r('GET', `namespaces/${NS}/views/{view}`, noView),
  r('HEAD', `namespaces/${NS}/views/{view}`, () => noContent(404)),
  r('POST', `namespaces/${NS}/views/{view}`, async (c) => { await bodyOf(c); return noView(c); }),
  r('DELETE', `namespaces/${NS}/views/{view}`, noView),
  r('POST', 'views/rename', renameView),
  r('POST', `namespaces/${NS}/register-view`, viewIn('registering views', false)),
];

function match(route: Route, parts: string[]): Record<string, string> | null {
  if (route.path.length !== parts.length) return null;
  const p: Record<string, string> = {};
  for (let i = 0; i < parts.length; i++) {
    const seg = route.path[i];
    if (seg.startsWith('{')) p[seg.slice(1, -1)] = parts[i];
    else if (seg !== parts[i]) return null;
  }
  return p;
}

/**
 * One request to the Iceberg REST catalog (`/iceberg/v1/…`, routes of the
 * Apache Iceberg REST catalog OpenAPI) → its answer. Read-only: config,
 * namespaces (multi-level), tables (list, load, exists, credentials), metrics
 * accepted and dropped, empty views and functions; a write answers 400, 404 or
 * 409 as the spec says for what it names, else the spec's declared refusal
 * (406 or 403). Bearer API tokens only (viewer role or higher); secrets of an
 * s3:// warehouse go only to tokens created with `vendCredentials` whose user
 * still has the role the token was made with.
 */
export async function handleIcebergRest(req: Request, deps: IcebergRestDeps): Promise<Response> {
  let url: URL | undefined;
  try {
    url = new URL(req.url);
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
    const p = hit.p!;
    const wireNs = p.namespace;
    const ns = wireNs === undefined ? null : lakeNamespace(wireNs.split(NS_SEP));
    if (wireNs !== undefined) p.namespace = wireNs.split(NS_SEP).join('.');
    return await hit.route.run({ req, url, deps, who, lake: lakeOf(deps), p, ns });
  } catch (e) {
    // A request body that is not JSON (or not clean text): the client's error, declared 400 by every operation.
    if (e instanceof AppError && e.code === 'bad_request') return icebergError(400, 'BadRequestException', e.message);
    // The catalog lives in Postgres: while it is unreachable, the spec's 503 tells clients to come back.
    if (isDatabaseUnavailable(e)) {
      return icebergError(503, 'ServiceUnavailableException', `database unavailable: the catalog cannot reach its database right now; retry in ${DB_RETRY_AFTER_SECONDS} s`, { 'Retry-After': String(DB_RETRY_AFTER_SECONDS) });
    }
    // Our bug or the machine's (a metadata file gone or damaged, a failed read): logged with the request
    // through the (redacting) logger; the answer names it only when it is one of ours (an AppError).
    const err = e as Error;
    (deps.logger ?? processLogger).error('iceberg-rest: unhandled error, answered 500', {
      method: req.method, path: url?.pathname ?? req.url, error: err?.message ?? String(e), cause: causesOf(e), stack: err?.stack,
    });
    const shown = e instanceof AppError && e.code !== 'internal' ? e.message : 'internal error (logged on the server)';
    return icebergError(500, 'InternalServerError', shown);
  }
}

/** The messages of an error's causes (a driver's error often says more than its wrapper). */
function causesOf(e: unknown): string | undefined {
  const out: string[] = [];
  for (let cur = (e as { cause?: unknown })?.cause, i = 0; cur && i < 4; cur = (cur as { cause?: unknown }).cause, i++) out.push(cur instanceof Error ? cur.message : String(cur));
  return out.length ? out.join(' <- ') : undefined;
}

function methodNotAllowed(method: string, allowed: string[]): Response {
  return icebergError(405, 'MethodNotAllowedException', `${method} is not an operation of this route (allowed: ${allowed.join(', ')})`, { Allow: allowed.join(', ') });
}
