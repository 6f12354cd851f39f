import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as arrow from 'apache-arrow';
import { IcebergError, IcebergRestCatalog } from 'iceberg-js';
import { createApiToken, createUser } from '../auth';
import { parseEnv, type Env } from '../config/env';
import { createPrisma } from '../db/prisma';
import { openLake } from '../lake';
import { batchOf } from '../lake/test-helpers';
import { startS3, type TestS3 } from '../lake/test-s3';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { handleIcebergRest, type IcebergRestDeps } from './catalog';
import { chdbChild } from './test-chdb';
import { startIcebergServer } from './test-server';
import { loadSpec } from './test-spec';

// The read-only Iceberg REST catalog over an s3:// warehouse (s3rver): the pure request → response
// function, then real HTTP clients (iceberg-js, ClickHouse through chdb) against a node:http adapter
// around that same function (startIcebergServer; the Next route file only forwards to it).
let db: TestDatabase;
let s3: TestS3;
let deps: IcebergRestDeps;
let env: Env;
let token: string;
let vendToken: string;
const ROWS = 250;

beforeAll(async () => {
  s3 = await startS3();
  db = await createTestDatabase();
  env = parseEnv({
    TRIBUTARY_DATA_DIR: '/tmp/unused', TRIBUTARY_WAREHOUSE: s3.warehouse(), AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER',
    AWS_REGION: 'eu-west-1', TRIBUTARY_S3_ENDPOINT: s3.endpoint, TRIBUTARY_S3_FORCE_PATH_STYLE: 'true',
  } as unknown as NodeJS.ProcessEnv);
  const prisma = createPrisma(db.url, { max: 2 });
  deps = { env, pool: db.pool, prisma };
  await createUser(prisma, { name: 'vera', password: 'viewer-pass-1', role: 'viewer' });
  await createUser(prisma, { name: 'ada', password: 'admin-pass-1', role: 'admin' });
  token = (await createApiToken(prisma, { user: 'vera', name: 'reader' })).token;
  vendToken = (await createApiToken(prisma, { user: 'ada', name: 'spark', vendCredentials: true })).token;
  const lake = openLake({ pool: db.pool, warehouse: env.warehouse, s3: env.s3 });
  const schema = new arrow.Schema([new arrow.Field('BRANCH_ID', new arrow.Utf8(), false), new arrow.Field('id', new arrow.Int64(), false), new arrow.Field('name', new arrow.Utf8(), true)]);
  const t = await lake.createTable('sales.orders', { schema, partitionBy: ['BRANCH_ID'] });
  const rows = (b: string, n: number) => batchOf(schema, Array.from({ length: n }, (_, i) => ({ BRANCH_ID: b, id: BigInt(i), name: `n${i}` })));
  await t.append([rows('b0', 150)]);
  await t.append([rows('b1', 100)]);
  await lake.createTable('sales.empty', { schema });
  await lake.createNamespace('ops');
});

afterAll(async () => {
  await deps?.prisma.$disconnect();
  await db?.drop();
  await s3?.stop();
});

const call = (method: string, p: string, o: { token?: string | null; body?: unknown } = {}) => {
  const headers: Record<string, string> = {};
  const tk = o.token === undefined ? token : o.token;
  if (tk) headers.authorization = `Bearer ${tk}`;
  return handleIcebergRest(new Request(`http://tributary.test/iceberg/v1${p}`, { method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body) }), deps);
};

describe('REST catalog handlers (no HTTP)', () => {
  it('answers 401 in the spec error shape without a token or with a bad one', async () => {
    for (const tk of [null, 'trb_nope']) {
      const r = await call('GET', '/namespaces', { token: tk });
      expect(r.status).toBe(401);
      expect((await r.json()).error).toMatchObject({ type: 'NotAuthorizedException', code: 401, message: expect.any(String) });
    }
  });

  it('config: the endpoints served and the storage properties, secrets only for a vending token', async () => {
    const r = await call('GET', '/config?warehouse=tributary');
    expect(r.status).toBe(200);
    const c = await r.json();
    expect(c.overrides).toEqual({});
    expect(c.endpoints).toContain('GET /v1/{prefix}/namespaces/{namespace}/tables/{table}');
    expect(c.defaults).toMatchObject({ 's3.endpoint': `${s3.endpoint}/`, 's3.path-style-access': 'true', 'client.region': 'eu-west-1' });
    expect(c.defaults['s3.access-key-id']).toBeUndefined();
    expect(c.defaults['s3.secret-access-key']).toBeUndefined();
    const v = await (await call('GET', '/config', { token: vendToken })).json();
    expect(v.defaults).toMatchObject({ 's3.access-key-id': 'S3RVER', 's3.secret-access-key': 'S3RVER' });
  });

  it("a vending token of an admin later made a viewer gets no keys: the user's current role is checked on every request", async () => {
    const prisma = deps.prisma;
    const u = await createUser(prisma, { name: 'dora', password: 'admin-pass-2', role: 'admin' });
    const t = (await createApiToken(prisma, { user: 'dora', name: 'vend', vendCredentials: true })).token;
    expect((await (await call('GET', '/config', { token: t })).json()).defaults['s3.secret-access-key']).toBe('S3RVER');
    await prisma.user.update({ where: { id: u.id }, data: { role: 'viewer' } });
    const c = await (await call('GET', '/config', { token: t })).json();
    expect(c.defaults['s3.secret-access-key']).toBeUndefined();
    expect(c.defaults['s3.access-key-id']).toBeUndefined();
    const tbl = await (await call('GET', '/namespaces/sales/tables/orders', { token: t })).json();
    expect(tbl.config['s3.secret-access-key']).toBeUndefined();
    // Made admin again, the token vends again (it was never revoked).
    await prisma.user.update({ where: { id: u.id }, data: { role: 'admin' } });
    expect((await (await call('GET', '/config', { token: t })).json()).defaults['s3.secret-access-key']).toBe('S3RVER');
    // A service account an admin gave a vending token (`tokens create --user spark --vend-credentials`) keeps it while it keeps its role.
    const svc = (await createApiToken(prisma, { user: 'vera', name: 'spark-svc', vendCredentials: true })).token;
    expect((await (await call('GET', '/config', { token: svc })).json()).defaults['s3.secret-access-key']).toBe('S3RVER');
  });

  it('namespaces: list, load, HEAD, 404', async () => {
    expect(await (await call('GET', '/namespaces')).json()).toEqual({ namespaces: [['ops'], ['sales']] });
    const ns = await (await call('GET', '/namespaces/sales')).json();
    expect(ns.namespace).toEqual(['sales']);
    expect(typeof ns.properties).toBe('object');
    expect((await call('HEAD', '/namespaces/sales')).status).toBe(204);
    expect((await call('HEAD', '/namespaces/nope')).status).toBe(404);
    const r = await call('GET', '/namespaces/nope');
    expect(r.status).toBe(404);
    expect((await r.json()).error.type).toBe('NoSuchNamespaceException');
  });

  it('tables: list, load with metadata location, metadata and config; HEAD; 404', async () => {
    const list = await (await call('GET', '/namespaces/sales/tables')).json();
    expect(list.identifiers).toEqual([{ namespace: ['sales'], name: 'empty' }, { namespace: ['sales'], name: 'orders' }].sort((a, b) => a.name.localeCompare(b.name)));
    const r = await call('GET', '/namespaces/sales/tables/orders');
    expect(r.status).toBe(200);
    const t = await r.json();
    expect(t['metadata-location']).toMatch(/^s3:\/\/lake\/wh-[0-9a-f]+\/sales\/orders\/metadata\/v3\.metadata\.json$/);
    expect(t.metadata['format-version']).toBe(2);
    expect(t.metadata.snapshots).toHaveLength(2);
    expect(t.config['s3.endpoint']).toBe(`${s3.endpoint}/`);
    expect(t.config['s3.secret-access-key']).toBeUndefined();
    expect((await (await call('GET', '/namespaces/sales/tables/orders', { token: vendToken })).json()).config['s3.secret-access-key']).toBe('S3RVER');
    expect((await call('HEAD', '/namespaces/sales/tables/orders')).status).toBe(204);
    expect((await call('HEAD', '/namespaces/sales/tables/nope')).status).toBe(404);
    const miss = await call('GET', '/namespaces/sales/tables/nope');
    expect(miss.status).toBe(404);
    expect((await miss.json()).error.type).toBe('NoSuchTableException');
  });

  it('metrics reports are accepted (204) and dropped', async () => {
    const r = await call('POST', '/namespaces/sales/tables/orders/metrics', { body: { 'report-type': 'scan-report', 'table-name': 'sales.orders' } });
    expect(r.status).toBe(204);
  });

  it('writes answer the refusal the spec declares (406 where it lists it, else 403) and change nothing', async () => {
    const cases: [string, string, unknown, number][] = [
      ['POST', '/namespaces', { namespace: ['x'] }, 406],
      ['DELETE', '/namespaces/ops', undefined, 403],
      ['POST', '/namespaces/sales/tables', { name: 't2', schema: { type: 'struct', fields: [] } }, 403],
      ['POST', '/namespaces/sales/tables/orders', { requirements: [], updates: [] }, 403],
      ['DELETE', '/namespaces/sales/tables/orders', undefined, 403],
      ['POST', '/tables/rename', { source: { namespace: ['sales'], name: 'orders' }, destination: { namespace: ['sales'], name: 'o' } }, 406],
      ['POST', '/transactions/commit', { 'table-changes': [] }, 403],
    ];
    for (const [m, p, body, status] of cases) {
      const r = await call(m, p, { body });
      expect(r.status, `${m} ${p}`).toBe(status);
      expect((await r.json()).error).toMatchObject({ type: status === 406 ? 'UnsupportedOperationException' : 'ForbiddenException', code: status });
    }
    expect((await call('HEAD', '/namespaces/ops')).status).toBe(204);
    expect((await call('HEAD', '/namespaces/sales/tables/orders')).status).toBe(204);
  });

  it('credentials: the table\'s keys for a vending token, none for others; s3 answers conform to the spec', async () => {
    const spec = loadSpec();
    for (const [p, tk] of [['/config', vendToken], ['/namespaces/sales/tables/orders', vendToken], ['/namespaces/sales/tables/orders/credentials', vendToken], ['/namespaces/sales/tables/orders/credentials', token]]) {
      const r = await call('GET', p, { token: tk });
      expect(spec.checkResponse('GET', `/iceberg/v1${p}`, r.status, r.headers.get('content-type'), await r.text()), p).toEqual([]);
    }
    const v = await (await call('GET', '/namespaces/sales/tables/orders/credentials', { token: vendToken })).json();
    expect(v['storage-credentials']).toHaveLength(1);
    expect(v['storage-credentials'][0].prefix).toMatch(/^s3:\/\/lake\/wh-[0-9a-f]+\/sales\/orders$/);
    expect(v['storage-credentials'][0].config).toMatchObject({ 's3.access-key-id': 'S3RVER', 's3.secret-access-key': 'S3RVER' });
    expect(await (await call('GET', '/namespaces/sales/tables/orders/credentials')).json()).toEqual({ 'storage-credentials': [] });
  });
});

describe('REST catalog over HTTP', () => {
  let server: { url: string; close(): Promise<void> };
  beforeAll(async () => { server = await startIcebergServer(deps); });
  afterAll(async () => { await server?.close(); });

  it('iceberg-js lists namespaces and tables, loads a table and reads its schema and snapshots', async () => {
    const cat = new IcebergRestCatalog({ baseUrl: server.url, auth: { type: 'bearer', token } });
    expect((await cat.listNamespaces()).map((n) => n.namespace)).toEqual([['ops'], ['sales']]);
    expect(await cat.namespaceExists({ namespace: ['sales'] })).toBe(true);
    expect(await cat.namespaceExists({ namespace: ['nope'] })).toBe(false);
    expect((await cat.listTables({ namespace: ['sales'] })).map((t) => t.name).sort()).toEqual(['empty', 'orders']);
    expect(await cat.tableExists({ namespace: ['sales'], name: 'orders' })).toBe(true);
    const meta = await cat.loadTable({ namespace: ['sales'], name: 'orders' });
    const schema = meta.schemas.find((s) => s['schema-id'] === meta['current-schema-id'])!;
    expect(schema.fields.map((f) => [f.name, f.type, f.required])).toEqual([['BRANCH_ID', 'string', true], ['id', 'long', true], ['name', 'string', false]]);
    // iceberg-js 0.8 types `snapshots` loosely: read them as the spec's Snapshot objects
    const snaps = (meta as unknown as { snapshots: { 'snapshot-id': number; summary: Record<string, string> }[] }).snapshots;
    expect(snaps.map((s) => s.summary.operation)).toEqual(['append', 'append']);
    expect(snaps.reduce((n, s) => n + Number(s.summary['added-records']), 0)).toBe(ROWS);
    expect(String(meta['current-snapshot-id'])).toBe(String(snaps.at(-1)!['snapshot-id']));
  });

  it('iceberg-js without a token gets 401', async () => {
    const cat = new IcebergRestCatalog({ baseUrl: server.url });
    const e = await cat.listNamespaces().catch((x) => x);
    expect(e).toBeInstanceOf(IcebergError);
    expect((e as IcebergError).status).toBe(401);
  });

  // ClickHouse (chdb 26.7) reads the loadTable `config` (s3.endpoint, keys) and the `metadata-location`, and
  // finds the metadata file inside the table location only because Tributary vends `s3.endpoint` with a
  // trailing slash (see storage-properties.ts): without it, it read <prefix>/sales/orders/lake/<prefix>/…
  // and got a 404 from the path-style endpoint.
  it('ClickHouse (chdb) attaches with DataLakeCatalog (REST) and counts the rows, with vended credentials or its own', async () => {
    const attach = (db: string, tk: string, extra: string) => `CREATE DATABASE ${db} ENGINE = DataLakeCatalog('${server.url}/v1')
      SETTINGS catalog_type = 'rest', warehouse = 'tributary', auth_header = 'Authorization: Bearer ${tk}'${extra}`;
    const [tables, orders, branches, empty, own] = await chdbChild([
      'SET allow_experimental_database_iceberg = 1',
      attach('vended', vendToken, ', vended_credentials = 1'),
      // a viewer token gets no keys: ClickHouse brings its own
      attach('own', token, ", aws_access_key_id = 'S3RVER', aws_secret_access_key = 'S3RVER'"),
    ], [
      'SHOW TABLES FROM vended',
      'SELECT count() AS n FROM vended.`sales.orders`',
      'SELECT BRANCH_ID AS b, count() AS n, toString(sum(id)) AS s FROM vended.`sales.orders` GROUP BY b ORDER BY b',
      'SELECT count() AS n FROM vended.`sales.empty`',
      'SELECT count() AS n FROM own.`sales.orders`',
    ]);
    expect(tables.map((r) => r.name).sort()).toEqual(['sales.empty', 'sales.orders']);
    expect(orders).toEqual([{ n: ROWS }]);
    expect(branches).toEqual([{ b: 'b0', n: 150, s: String((149 * 150) / 2) }, { b: 'b1', n: 100, s: String((99 * 100) / 2) }]);
    expect(empty).toEqual([{ n: 0 }]);
    expect(own).toEqual([{ n: ROWS }]);
  }, 90_000);
});
