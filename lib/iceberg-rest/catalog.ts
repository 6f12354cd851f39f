import type pg from 'pg';
import type { Env } from '../config/env';
import type { Db } from '../db/prisma';
import { authenticateApiToken, roleAtLeast } from '../auth';
import { openLake, type Lake } from '../lake';
import { icebergError, notAuthorized, unsupported } from './errors';
import { DB_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from '../errors/db-unavailable';
import { storageProperties } from './storage-properties';
import { AppError } from '../errors';
import { assertCleanUrl } from '../errors/bad-bytes';

/** What the catalog works with: the web process's handles (lib/api's ServerDeps fits). */
export interface IcebergRestDeps { env: Env; pool: pg.Pool; prisma: Db }

/** The operations served, as the spec's `endpoints` list names them (clients check it before calling). */
export const ENDPOINTS = [
  'GET /v1/{prefix}/namespaces',
  'GET /v1/{prefix}/namespaces/{namespace}',
  'HEAD /v1/{prefix}/namespaces/{namespace}',
  'GET /v1/{prefix}/namespaces/{namespace}/tables',
  'GET /v1/{prefix}/namespaces/{namespace}/tables/{table}',
  'HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table}',
  'POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics',
  'GET /v1/{prefix}/namespaces/{namespace}/views',
];

// Multi-level namespaces travel as one path segment joined by the unit separator (spec: `%1F`);
// Tributary's lake names them with dots (`a.b`).
const NS_SEP = '\u001f';
const levels = (ns: string) => ns.split('.');

const lakes = new WeakMap<pg.Pool, Lake>();
function lakeOf(deps: IcebergRestDeps): Lake {
  let l = lakes.get(deps.pool);
  if (!l) lakes.set(deps.pool, (l = openLake({ pool: deps.pool, warehouse: deps.env.warehouse, s3: deps.env.s3 })));
  return l;
}

const noContent = (status = 204) => new Response(null, { status });

/**
 * One request to the Iceberg REST catalog (`/iceberg/v1/…`, routes of the
 * Apache Iceberg REST catalog OpenAPI) → its answer. Read-only: config,
 * namespaces and tables (list, load, exists), metrics accepted and dropped;
 * every write answers 406 UnsupportedOperationException. Bearer API tokens
 * only (viewer role or higher); secrets of an s3:// warehouse go only to
 * tokens created with `vendCredentials` whose user still has the role the token was made with.
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
    if (parts[0] === 'oauth' && parts[1] === 'tokens') {
      return Response.json({ error: 'unsupported_grant_type', error_description: 'iceberg-rest: no token endpoint; create an API token (`tributary tokens create`) and send it as `token`' }, { status: 400 });
    }

    const authz = req.headers.get('authorization');
    if (!authz) return notAuthorized('send `Authorization: Bearer <API token>` (create one with `tributary tokens create`)');
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authz);
    if (!bearer) return notAuthorized('Authorization header must be `Bearer <API token>`');
    const who = await authenticateApiToken(deps.prisma, bearer[1]);
    if (!who) return notAuthorized('API token is unknown or revoked');
    if (!roleAtLeast(who.role, 'viewer')) return icebergError(403, 'ForbiddenException', `the viewer role is needed; the token has ${who.role}`);
    // `who` is read from the token and its user on every request: a vending token whose user has
    // since been demoted (an admin made a viewer) has vendCredentials false here (lib/auth/tokens.ts).
    const storage = () => storageProperties(deps.env.warehouse, deps.env.s3, who.vendCredentials);

    if (parts.length === 1 && parts[0] === 'config') {
      if (method !== 'GET') return unsupported(`${method} /v1/config`);
      return Response.json({ defaults: storage(), overrides: {}, endpoints: ENDPOINTS });
    }
    if (parts[0] !== 'namespaces') return icebergError(404, 'NotFoundException', `no route /v1/${parts.join('/')}`);
    const lake = lakeOf(deps);

    // /v1/namespaces
    if (parts.length === 1) {
      if (method !== 'GET') return unsupported(`${method} /v1/namespaces (creating namespaces)`);
      const parent = url.searchParams.get('parent');
      const all = await lake.listNamespaces();
      let out: string[][];
      if (!parent) out = [...new Set(all.map((n) => levels(n)[0]))].map((n) => [n]);
      else {
        const p = parent.split(NS_SEP).join('.');
        if (!all.some((n) => n === p || n.startsWith(`${p}.`))) return icebergError(404, 'NoSuchNamespaceException', `namespace ${p} does not exist`);
        const depth = levels(p).length;
        out = [...new Set(all.filter((n) => n.startsWith(`${p}.`)).map((n) => levels(n).slice(0, depth + 1).join('.')))].map(levels);
      }
      return Response.json({ namespaces: out.sort((a, b) => a.join('.').localeCompare(b.join('.'))) });
    }

    const ns = parts[1].split(NS_SEP).join('.');
    const nsExists = async () => (await lake.listNamespaces()).includes(ns);
    const noNamespace = () => icebergError(404, 'NoSuchNamespaceException', `namespace ${ns} does not exist`);

    // /v1/namespaces/{ns}
    if (parts.length === 2) {
      if (method === 'HEAD') return noContent((await nsExists()) ? 204 : 404);
      if (method !== 'GET') return unsupported(`${method} /v1/namespaces/{namespace} (dropping namespaces)`);
      if (!(await nsExists())) return noNamespace();
      return Response.json({ namespace: levels(ns), properties: await lake.namespaceProperties(ns) });
    }
    if (parts.length === 3 && parts[2] === 'properties') return unsupported(`${method} namespace properties`);

    // /v1/namespaces/{ns}/views: Tributary keeps no views; engines list them while browsing
    if (parts[2] === 'views') {
      if (method !== 'GET' && method !== 'HEAD') return unsupported(`${method} on views`);
      if (parts.length === 3) return (await nsExists()) ? Response.json({ identifiers: [] }) : noNamespace();
      return method === 'HEAD' ? noContent(404) : icebergError(404, 'NoSuchViewException', `view ${ns}.${parts[3]} does not exist`);
    }
    if (parts[2] !== 'tables') return icebergError(404, 'NotFoundException', `no route /v1/${parts.join('/')}`);

    // /v1/namespaces/{ns}/tables
    if (parts.length === 3) {
      if (method !== 'GET') return unsupported(`${method} /v1/namespaces/{namespace}/tables (creating tables)`);
      if (!(await nsExists())) return noNamespace();
      const identifiers = (await lake.listTables(ns)).filter((id) => id.slice(0, id.lastIndexOf('.')) === ns)
        .map((id) => ({ namespace: levels(ns), name: id.slice(id.lastIndexOf('.') + 1) }));
      return Response.json({ identifiers });
    }

    const ident = `${ns}.${parts[3]}`;
    // /v1/namespaces/{ns}/tables/{t}/metrics: scan reports are accepted and dropped
    if (parts.length === 5 && parts[4] === 'metrics') {
      if (method !== 'POST') return unsupported(`${method} on metrics`);
      return (await lake.tableExists(ident)) ? noContent(204) : icebergError(404, 'NoSuchTableException', `table ${ident} does not exist`);
    }
    if (parts.length > 4) return parts[4] === 'credentials' || parts[4] === 'plan' ? unsupported(`/${parts.slice(4).join('/')}`) : icebergError(404, 'NotFoundException', `no route /v1/${parts.join('/')}`);

    // /v1/namespaces/{ns}/tables/{t}
    if (method === 'HEAD') return noContent((await lake.tableExists(ident)) ? 204 : 404);
    if (method !== 'GET') return unsupported(`${method} /v1/namespaces/{namespace}/tables/{table} (${method === 'POST' ? 'commits' : 'dropping tables'})`);
    if (!(await lake.tableExists(ident))) return icebergError(404, 'NoSuchTableException', `table ${ident} does not exist`);
    const t = await lake.loadTable(ident);
    const loc = t.metadataLocation();
    // The metadata file as written, not re-serialised: 64-bit snapshot ids stay exact.
    const raw = new TextDecoder().decode(await lake.storage.read(loc));
    const body = `{"metadata-location":${JSON.stringify(loc)},"metadata":${raw},"config":${JSON.stringify(storage())}}`;
    return new Response(body, { status: 200, headers: { 'content-type': 'application/json', 'cache-control': 'no-store' } });
  } catch (e) {
    // The catalog lives in Postgres: while it is unreachable, the spec's 503 tells clients to come back.
    if (isDatabaseUnavailable(e)) {
      return icebergError(503, 'ServiceUnavailableException', `database unavailable: the catalog cannot reach its database right now; retry in ${DB_RETRY_AFTER_SECONDS} s`, { 'Retry-After': String(DB_RETRY_AFTER_SECONDS) });
    }
    return icebergError(500, 'InternalServerError', (e as Error).message ?? String(e));
  }
}
