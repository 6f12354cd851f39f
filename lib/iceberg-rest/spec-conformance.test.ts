import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as arrow from 'apache-arrow';
import { batchOf } from '../lake/test-helpers';
import { chdbChild } from './test-chdb';
import { useServedCatalog } from '../testing/served-catalog';
import { loadSpec } from './test-spec';

// Issue #22 (3): every answer of the served REST catalog, over HTTP, checked against the Apache
// Iceberg REST catalog OpenAPI (vendored in test/fixtures/iceberg-rest-spec/): the status must be
// one the operation declares, the body must validate against that response's schema (ajv). Covers
// every operation of the spec, success and error paths, multi-level namespaces (`peerns.sub`,
// `peerns.sub.deep`), and reads the lake back through ClickHouse's DataLakeCatalog afterwards.
const spec = loadSpec();
const problems: string[] = [];
const called = new Set<string>();
const fx = useServedCatalog({
  tokenName: 'client',
  fill: async (lake) => {
    const schema = new arrow.Schema([new arrow.Field('id', new arrow.Int64(), false), new arrow.Field('name', new arrow.Utf8(), true)]);
    const fill = async (ident: string, n: number) => {
      const t = await lake.createTable(ident, { schema });
      await t.append([batchOf(schema, Array.from({ length: n }, (_, i) => ({ id: BigInt(i), name: `r${i}` })))]);
    };
    await fill('sales.orders', 3);
    await fill('peerns.sub.events', 5);
    await fill('peerns.sub.deep.logs', 2);
    await lake.createTable('sales.empty', { schema });
    await lake.createNamespace('ops', { owner: 'data-team' });
  },
});

/** One request over HTTP; its answer is checked against the spec and recorded. */
async function call(method: string, path: string, o: { body?: unknown; token?: string | null } = {}) {
  const tk = o.token === undefined ? fx.token : o.token;
  const res = await fetch(`${fx.url}/v1${path}`, {
    method,
    headers: { ...(tk ? { authorization: `Bearer ${tk}` } : {}), ...(o.body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: o.body === undefined ? undefined : typeof o.body === 'string' ? o.body : JSON.stringify(o.body),
  });
  const text = await res.text();
  const pathname = new URL(`${fx.url}/v1${path}`).pathname;
  const op = spec.operationOf(method, pathname);
  if (op) called.add(op.operationId);
  problems.push(...spec.checkResponse(method, pathname, res.status, res.headers.get('content-type'), text).map((p) => `${method} ${path}: ${p}`));
  let json: any = null; // eslint-disable-line @typescript-eslint/no-explicit-any
  try { json = JSON.parse(text); } catch { /* HEAD, 204 */ }
  return { status: res.status, json, text, headers: res.headers };
}

const noProblems = () => { expect(problems.splice(0)).toEqual([]); };

describe('the spec checker can fail', () => {
  it('refuses an undeclared status and a body off the schema', () => {
    expect(spec.checkResponse('POST', '/iceberg/v1/namespaces/a/tables', 406, 'application/json', '{"error":{"message":"m","type":"t","code":406}}')[0]).toMatch(/declares no status 406/);
    expect(spec.checkResponse('GET', '/iceberg/v1/namespaces', 200, 'application/json', '{"namespaces":[["a"],"b"]}')[0]).toMatch(/must be array/);
    expect(spec.checkResponse('GET', '/iceberg/v1/namespaces', 500, 'text/plain', 'boom')[0]).toMatch(/content-type text\/plain/);
    expect(spec.checkResponse('POST', '/iceberg/v1/tables/rename', 404, 'application/json', '{"error":{"message":"m","type":"t","code":404}}')).toEqual([]);
  });
});

describe('multi-level namespaces', () => {
  it('list at every level, with the unit separator (%1F) in parent', async () => {
    expect((await call('GET', '/namespaces')).json).toEqual({ namespaces: [['ops'], ['peerns'], ['sales']] });
    expect((await call('GET', '/namespaces?parent=peerns')).json).toEqual({ namespaces: [['peerns', 'sub']] });
    expect((await call('GET', '/namespaces?parent=peerns%1Fsub')).json).toEqual({ namespaces: [['peerns', 'sub', 'deep']] });
    expect((await call('GET', '/namespaces?parent=peerns%1Fsub%1Fdeep')).json).toEqual({ namespaces: [] });
    expect((await call('GET', '/namespaces?parent=')).json).toEqual({ namespaces: [['ops'], ['peerns'], ['sales']] });
    const miss = await call('GET', '/namespaces?parent=nope%1Fsub');
    expect(miss.status).toBe(404);
    expect(miss.json.error).toMatchObject({ type: 'NoSuchNamespaceException', code: 404 });
    noProblems();
  });

  it('load and HEAD at every level; a parent that exists only through its children has no properties', async () => {
    expect((await call('GET', '/namespaces/peerns')).json).toEqual({ namespace: ['peerns'], properties: {} });
    expect((await call('GET', '/namespaces/peerns%1Fsub')).json).toEqual({ namespace: ['peerns', 'sub'], properties: {} });
    expect((await call('GET', '/namespaces/peerns%1Fsub%1Fdeep')).json).toEqual({ namespace: ['peerns', 'sub', 'deep'], properties: {} });
    for (const ns of ['peerns', 'peerns%1Fsub', 'peerns%1Fsub%1Fdeep', 'ops', 'sales']) expect((await call('HEAD', `/namespaces/${ns}`)).status, ns).toBe(204);
    for (const ns of ['peer', 'peerns%1Fsu', 'sub', 'peerns%1Fsub%1Fdeep%1Fx']) {
      expect((await call('HEAD', `/namespaces/${ns}`)).status, ns).toBe(404);
      expect((await call('GET', `/namespaces/${ns}`)).json.error.type).toBe('NoSuchNamespaceException');
    }
    noProblems();
  });

  it('namespace properties are the namespace\'s own: no internal `exists` marker', async () => {
    expect((await call('GET', '/namespaces/ops')).json).toEqual({ namespace: ['ops'], properties: { owner: 'data-team' } });
    expect((await call('GET', '/namespaces/sales')).json).toEqual({ namespace: ['sales'], properties: {} });
    noProblems();
  });

  it('tables list, load, HEAD, credentials and metrics at every level', async () => {
    expect((await call('GET', '/namespaces/peerns/tables')).json).toEqual({ identifiers: [] });
    expect((await call('GET', '/namespaces/peerns%1Fsub/tables')).json).toEqual({ identifiers: [{ namespace: ['peerns', 'sub'], name: 'events' }] });
    expect((await call('GET', '/namespaces/peerns%1Fsub%1Fdeep/tables')).json).toEqual({ identifiers: [{ namespace: ['peerns', 'sub', 'deep'], name: 'logs' }] });
    expect((await call('GET', '/namespaces/nope/tables')).status).toBe(404);
    const t = await call('GET', '/namespaces/peerns%1Fsub/tables/events');
    expect(t.status).toBe(200);
    expect(t.json['metadata-location']).toMatch(/\/peerns\.sub\/events\/metadata\/v2\.metadata\.json$|\/peerns\/sub\/events\/metadata\/v2\.metadata\.json$/);
    expect(t.json.metadata.snapshots).toHaveLength(1);
    expect((await call('GET', '/namespaces/sales/tables/orders')).status).toBe(200);
    expect((await call('HEAD', '/namespaces/peerns%1Fsub%1Fdeep/tables/logs')).status).toBe(204);
    expect((await call('HEAD', '/namespaces/peerns/tables/events')).status).toBe(404);
    expect((await call('GET', '/namespaces/peerns/tables/events')).json.error.type).toBe('NoSuchTableException');
    // a file:// warehouse has no keys to vend: an empty list, and the client uses its own access
    expect((await call('GET', '/namespaces/peerns%1Fsub/tables/events/credentials')).json).toEqual({ 'storage-credentials': [] });
    expect((await call('GET', '/namespaces/sales/tables/nope/credentials')).status).toBe(404);
    expect((await call('POST', '/namespaces/peerns%1Fsub/tables/events/metrics', { body: { 'report-type': 'scan-report' } })).status).toBe(204);
    expect((await call('POST', '/namespaces/sales/tables/nope/metrics', { body: { 'report-type': 'scan-report' } })).status).toBe(404);
    noProblems();
  });
});

describe('every operation answers a status the spec declares for it', () => {
  it('config, and the deprecated OAuth token endpoint', async () => {
    const c = await call('GET', '/config?warehouse=tributary');
    expect(c.status).toBe(200);
    expect(c.json.endpoints).toContain('GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/credentials');
    // every operation served with data is announced, and only operations the vendored spec defines
    for (const e of ['GET /v1/{prefix}/namespaces/{namespace}/functions', 'GET /v1/{prefix}/namespaces/{namespace}/functions/{function}', 'POST /v1/{prefix}/namespaces', 'POST /v1/{prefix}/namespaces/{namespace}/tables']) expect(c.json.endpoints).toContain(e);
    for (const e of c.json.endpoints as string[]) {
      const [m, t] = e.split(' ');
      expect(spec.operations.some((o) => o.method === m && o.template === t), e).toBe(true);
    }
    const o = await call('POST', '/oauth/tokens', { token: null });
    expect(o.status).toBe(400);
    expect(o.json.error).toBe('unsupported_grant_type');
    noProblems();
  });

  it('views and functions: empty lists, 404 for any one of them', async () => {
    expect((await call('GET', '/namespaces/peerns%1Fsub/views')).json).toEqual({ identifiers: [] });
    expect((await call('GET', '/namespaces/nope/views')).status).toBe(404);
    expect((await call('GET', '/namespaces/sales/views/v')).json.error.type).toBe('NoSuchViewException');
    expect((await call('HEAD', '/namespaces/sales/views/v')).status).toBe(404);
    expect((await call('GET', '/namespaces/sales/functions')).json).toEqual({ identifiers: [] });
    expect((await call('GET', '/namespaces/nope/functions')).status).toBe(404);
    expect((await call('GET', '/namespaces/sales/functions/f')).json.error.type).toBe('NoSuchFunctionException');
    noProblems();
  });

  it('scan planning: 406 for a plan, 404 for any plan id or task', async () => {
    expect((await call('POST', '/namespaces/sales/tables/orders/plan', { body: {} })).json.error.type).toBe('UnsupportedOperationException');
    expect((await call('GET', '/namespaces/sales/tables/orders/plan/p1')).json.error.type).toBe('NoSuchPlanIdException');
    expect((await call('DELETE', '/namespaces/sales/tables/orders/plan/p1')).json.error.type).toBe('NoSuchPlanIdException');
    expect((await call('POST', '/namespaces/sales/tables/orders/tasks', { body: { 'plan-task': 't' } })).json.error.type).toBe('NoSuchPlanTaskException');
    noProblems();
  });

  it('writes: 400, 404 and 409 as for any catalog; a real write gets 406 where the spec declares it, 403 elsewhere; nothing changes', async () => {
    const schema = { type: 'struct', fields: [{ id: 1, name: 'x', type: 'long', required: false }] };
    const ident = (ns: string[], name: string) => ({ namespace: ns, name });
    const rename = (from: [string[], string], to: [string[], string]) => ({ source: ident(...from), destination: ident(...to) });
    const commit = { requirements: [], updates: [] };
    const E = { unsupported: 'UnsupportedOperationException', forbidden: 'ForbiddenException', noNs: 'NoSuchNamespaceException', noTable: 'NoSuchTableException', exists: 'AlreadyExistsException', noView: 'NoSuchViewException', bad: 'BadRequestException' };
    const cases: [string, string, unknown, number, string][] = [
      ['POST', '/namespaces', { namespace: ['x'] }, 406, E.unsupported],
      ['POST', '/namespaces', { namespace: ['ops'] }, 409, E.exists],
      ['POST', '/namespaces', { namespace: ['peerns', 'sub'] }, 409, E.exists],
      ['POST', '/namespaces', { namespace: 'ops' }, 400, E.bad],
      ['POST', '/namespaces/ops/properties', { updates: { a: 'b' } }, 406, E.unsupported],
      ['POST', '/namespaces/nope/properties', { updates: { a: 'b' } }, 404, E.noNs],
      ['DELETE', '/namespaces/ops', undefined, 403, E.forbidden],
      ['DELETE', '/namespaces/nope', undefined, 404, E.noNs],
      ['DELETE', '/namespaces/peerns%1Fsub', undefined, 409, 'NamespaceNotEmptyException'],
      ['POST', '/namespaces/sales/tables', { name: 't2', schema }, 403, E.forbidden],
      ['POST', '/namespaces/sales/tables', { name: 'orders', schema }, 409, E.exists],
      ['POST', '/namespaces/nope/tables', { name: 't2', schema }, 404, E.noNs],
      ['POST', '/namespaces/sales/tables', { schema }, 400, E.bad],
      ['POST', '/namespaces/sales/register', { name: 't3', 'metadata-location': 'file:///x/v1.metadata.json' }, 403, E.forbidden],
      ['POST', '/namespaces/sales/register', { name: 'orders', 'metadata-location': 'file:///x/v1.metadata.json' }, 409, E.exists],
      ['POST', '/namespaces/nope/register', { name: 't3', 'metadata-location': 'file:///x/v1.metadata.json' }, 404, E.noNs],
      ['POST', '/namespaces/sales/tables/orders', commit, 403, E.forbidden],
      ['POST', '/namespaces/sales/tables/nope', commit, 404, E.noTable],
      ['POST', '/namespaces/sales/tables/orders', '{"requirements": [', 400, E.bad],
      ['DELETE', '/namespaces/sales/tables/orders', undefined, 403, E.forbidden],
      ['DELETE', '/namespaces/sales/tables/nope', undefined, 404, E.noTable],
      ['POST', '/namespaces/sales/tables/orders/unregister', undefined, 403, E.forbidden],
      ['POST', '/namespaces/sales/tables/nope/unregister', undefined, 404, E.noTable],
      ['POST', '/namespaces/sales/tables/orders/sign', { region: 'r', uri: 'u', method: 'GET', headers: {} }, 403, E.forbidden],
      ['POST', '/namespaces/sales/tables/nope/plan', {}, 404, E.noTable],
      ['POST', '/tables/rename', rename([['sales'], 'orders'], [['sales'], 'o2']), 406, E.unsupported],
      ['POST', '/tables/rename', rename([['sales'], 'nope'], [['sales'], 'o2']), 404, E.noTable],
      ['POST', '/tables/rename', rename([['sales'], 'orders'], [['nope'], 'o2']), 404, E.noNs],
      ['POST', '/tables/rename', rename([['sales'], 'orders'], [['sales'], 'empty']), 409, E.exists],
      ['POST', '/tables/rename', 'not json', 400, E.bad],
      ['POST', '/transactions/commit', { 'table-changes': [] }, 403, E.forbidden],
      ['POST', '/transactions/commit', { 'table-changes': [{ identifier: ident(['sales'], 'nope'), ...commit }] }, 404, E.noTable],
      ['POST', '/transactions/commit', {}, 400, E.bad],
      ['POST', '/namespaces/sales/views', { name: 'v' }, 403, E.forbidden],
      ['POST', '/namespaces/sales/views', { name: 'orders' }, 409, E.exists],
      ['POST', '/namespaces/nope/views', { name: 'v' }, 404, E.noNs],
      ['POST', '/namespaces/sales/views/v', commit, 404, E.noView],
      ['DELETE', '/namespaces/sales/views/v', undefined, 404, E.noView],
      ['POST', '/views/rename', rename([['sales'], 'v'], [['sales'], 'w']), 404, E.noView],
      ['POST', '/namespaces/sales/register-view', { name: 'v', 'metadata-location': 'file:///x' }, 403, E.forbidden],
      ['POST', '/namespaces/sales/register-view', { name: 'orders', 'metadata-location': 'file:///x' }, 409, E.exists],
      ['POST', '/namespaces/nope/register-view', { name: 'v', 'metadata-location': 'file:///x' }, 404, E.noNs],
    ];
    for (const [m, p, body, status, type] of cases) {
      const r = await call(m, p, { body });
      expect(r.status, `${m} ${p} ${JSON.stringify(body)}`).toBe(status);
      expect(r.json.error, `${m} ${p} ${JSON.stringify(body)}`).toMatchObject({ type, code: status });
    }
    expect((await fx.lake.listTables()).sort()).toEqual(['peerns.sub.deep.logs', 'peerns.sub.events', 'sales.empty', 'sales.orders']);
    expect(await fx.lake.namespaceProperties('ops')).toMatchObject({ owner: 'data-team' });
    noProblems();
  });

  it('a namespace level or table name holding a dot names nothing (only %1F separates levels)', async () => {
    // `peerns.sub` exists as the two levels peerns%1Fsub; one level called "peerns.sub" cannot exist in the lake.
    for (const p of ['/namespaces/peerns.sub', '/namespaces/peerns.sub/tables', '/namespaces?parent=peerns.sub', '/namespaces/peerns%1Fsub.deep']) {
      const r = await call('GET', p);
      expect(r.status, p).toBe(404);
      expect(r.json.error.type, p).toBe('NoSuchNamespaceException');
    }
    expect((await call('HEAD', '/namespaces/peerns.sub')).status).toBe(404);
    expect((await call('GET', '/namespaces/peerns.sub/tables/events')).json.error.type).toBe('NoSuchTableException');
    expect((await call('HEAD', '/namespaces/peerns.sub/tables/events')).status).toBe(404);
    // table `sub.events` in namespace `peerns` is not table `events` in `peerns.sub`
    expect((await call('GET', '/namespaces/peerns/tables/sub.events')).json.error.type).toBe('NoSuchTableException');
    expect((await call('HEAD', '/namespaces/peerns/tables/sub.events')).status).toBe(404);
    noProblems();
  });

  it('a table with no snapshot loads and validates', async () => {
    const t = await call('GET', '/namespaces/sales/tables/empty');
    expect(t.status).toBe(200);
    expect(t.json.metadata['current-snapshot-id']).toBe(-1);
    expect(t.json.metadata.snapshots ?? []).toEqual([]);
    noProblems();
  });

  it('401 without a token or with an unknown one, on reads and writes', async () => {
    for (const [m, p] of [['GET', '/config'], ['GET', '/namespaces'], ['HEAD', '/namespaces/sales'], ['GET', '/namespaces/sales/tables/orders'], ['POST', '/tables/rename']]) {
      for (const tk of [null, 'trb_unknown']) expect((await call(m, p, { token: tk, body: m === 'POST' ? {} : undefined })).status, `${m} ${p}`).toBe(401);
    }
    noProblems();
  });

  it('a malformed percent-encoding in the path or query is the spec\'s 400, in JSON', async () => {
    for (const p of ['/namespaces/%E0%A4%A/tables', '/namespaces/%ZZ', '/namespaces/sales/tables/%C3%28', '/namespaces?parent=%E0%A4%A']) {
      const r = await call('GET', p);
      expect(r.status, p).toBe(400);
      expect(r.headers.get('content-type'), p).toMatch(/^application\/json/);
      expect(r.json.error, p).toMatchObject({ type: 'BadRequestException', code: 400 });
    }
    noProblems();
  });

  it('a method the spec defines no operation for: 405 with Allow, in the error model', async () => {
    for (const method of ['PUT', 'PATCH']) {
      const r = await fetch(`${fx.url}/v1/namespaces/sales`, { method, headers: { authorization: `Bearer ${fx.token}` } });
      expect(r.status, method).toBe(405);
      expect(r.headers.get('allow'), method).toBe('GET, HEAD, DELETE');
      expect((await r.json()).error, method).toMatchObject({ type: 'MethodNotAllowedException', code: 405 });
    }
  });

  it('the Next route hands every method Next routes to the catalog (else Next answers a bare 405 itself)', () => {
    // Next answers a method the route file does not export with an empty 405 and no `Allow`.
    const route = fs.readFileSync(path.resolve('app/iceberg/v1/[...path]/route.ts'), 'utf8');
    const exported = [...route.matchAll(/handle as (\w+)/g)].map((m) => m[1]);
    expect(exported.sort()).toEqual(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT']);
  });

  it('every operation of the spec was called above', () => {
    expect(spec.operations.map((o) => o.operationId).filter((id) => !called.has(id))).toEqual([]);
  });
});

describe('read back through ClickHouse', () => {
  // After every call above (404s included), chdb's DataLakeCatalog walks the namespaces from the top
  // (`parent=` with %1F) and sees every table at every level; `vended_credentials = 0` because a
  // file:// warehouse has none to vend (clickhouse-file-warehouse.test.ts).
  it('DataLakeCatalog lists every table and reads the nested ones', async () => {
    const [tables, events, logs] = await chdbChild([
      'SET allow_experimental_database_iceberg = 1',
      `CREATE DATABASE lake ENGINE = DataLakeCatalog('${fx.url}/v1')
        SETTINGS catalog_type = 'rest', warehouse = 'tributary', auth_header = 'Authorization: Bearer ${fx.token}', vended_credentials = 0`,
    ], [
      'SHOW TABLES FROM lake',
      'SELECT count() AS n, toString(sum(id)) AS s FROM lake.`peerns.sub.events`',
      'SELECT count() AS n FROM lake.`peerns.sub.deep.logs`',
    ]);
    expect(tables.map((t) => t.name).sort()).toEqual(['peerns.sub.deep.logs', 'peerns.sub.events', 'sales.empty', 'sales.orders']);
    expect(events).toEqual([{ n: 5, s: '10' }]);
    expect(logs).toEqual([{ n: 2 }]);
  }, 90_000);
});
