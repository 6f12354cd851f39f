import { describe, expect, it, vi } from 'vitest';
import * as arrow from 'apache-arrow';
import { IcebergError, IcebergRestCatalog } from 'iceberg-js';
import { batchOf } from '../lake/test-helpers';
import { useServedCatalog } from '../testing/served-catalog';
import { loadSpec } from './test-spec';

// The REST catalog over a SQL catalog shared with other writers (pyiceberg's SqlCatalog, Iceberg's
// JdbcCatalog): tables of format version 1 and 3 served as they are, a JdbcCatalog view row that is
// no table, a NULL namespace property, a damaged metadata file (500, logged), and the "if not exists"
// flows of a client (iceberg-js) against objects that exist.
const spec = loadSpec();
const problems: string[] = [];

const fx = useServedCatalog({
  tokenName: 'shared',
  fill: async (lake) => {
    const schema = new arrow.Schema([new arrow.Field('id', new arrow.Int64(), false)]);
    const t = await lake.createTable('sales.orders', { schema });
    await t.append([batchOf(schema, [{ id: 1n }, { id: 2n }])]);
    // Metadata files as other writers leave them: v1 (pyiceberg's default for old tables, Spark's
    // `format-version=1`) and v3, written beside the lake's own, registered by a row of their own.
    const base = (await lake.loadTable('sales.orders')).metadata() as unknown as Record<string, unknown>;
    const v1: Record<string, unknown> = {
      ...base, 'format-version': 1, location: `${lake.warehouse}/legacy/v1tbl`, 'current-snapshot-id': -1, snapshots: [], 'snapshot-log': [], refs: {},
      schema: (base.schemas as unknown[])[0], 'partition-spec': [],
    };
    delete v1['last-sequence-number'];
    const v3 = { ...base, 'format-version': 3, location: `${lake.warehouse}/legacy/v3tbl`, 'next-row-id': 0, 'current-snapshot-id': -1, snapshots: [], 'snapshot-log': [], refs: {} };
    const view = {
      'view-uuid': 'fa6506c3-7681-40c8-86dc-e36561f83385', 'format-version': 1, location: `${lake.warehouse}/legacy/v_orders`, 'current-version-id': 1, properties: {},
      versions: [{ 'version-id': 1, 'timestamp-ms': 1796379926000, 'schema-id': 0, summary: { 'engine-name': 'Spark' }, representations: [{ type: 'sql', sql: 'SELECT * FROM sales.orders', dialect: 'spark' }], 'default-namespace': ['legacy'] }],
      'version-log': [{ 'version-id': 1, 'timestamp-ms': 1796379926000 }], schemas: [{ 'schema-id': 0, type: 'struct', fields: [{ id: 1, name: 'id', required: false, type: 'long' }] }],
    };
    const put = async (name: string, meta: unknown, type: string | null, text = JSON.stringify(meta)) => {
      const loc = `${lake.warehouse}/legacy/${name}/metadata/00000-x.metadata.json`;
      await lake.storage.write(loc, new TextEncoder().encode(text));
      await fx.db.pool.query(`insert into iceberg_tables (catalog_name, table_namespace, table_name, metadata_location, previous_metadata_location, iceberg_type)
        values ('tributary', 'legacy', $1, $2, null, $3)`, [name, loc, type]);
    };
    await put('v1tbl', v1, null);
    await put('v3tbl', v3, 'TABLE');
    await put('v_orders', view, 'VIEW');
    await put('broken', null, 'TABLE', '{"format-version": 2, "location": ');
    await fx.db.pool.query(`insert into iceberg_namespace_properties values ('tributary', 'legacy', 'comment', null), ('tributary', 'legacy', 'owner', 'ops')`);
  },
});

async function call(method: string, path: string) {
  const res = await fetch(`${fx.url}/v1${path}`, { method, headers: { authorization: `Bearer ${fx.token}` } });
  const text = await res.text();
  problems.push(...spec.checkResponse(method, new URL(`${fx.url}/v1${path}`).pathname, res.status, res.headers.get('content-type'), text).map((p) => `${method} ${path}: ${p}`));
  let json: any = null; // eslint-disable-line @typescript-eslint/no-explicit-any
  try { json = JSON.parse(text); } catch { /* HEAD */ }
  return { status: res.status, json };
}

describe('a SQL catalog shared with other writers', () => {
  it('serves tables of format version 1 and 3 as they are stored', async () => {
    for (const [name, v] of [['v1tbl', 1], ['v3tbl', 3]] as const) {
      const r = await call('GET', `/namespaces/legacy/tables/${name}`);
      expect(r.status, name).toBe(200);
      expect(r.json.metadata['format-version'], name).toBe(v);
      expect(r.json['metadata-location'], name).toMatch(new RegExp(`/legacy/${name}/metadata/00000-x\\.metadata\\.json$`));
      expect((await call('HEAD', `/namespaces/legacy/tables/${name}`)).status, name).toBe(204);
    }
    // The lake's own commands still refuse to write them: only the catalog passes them through.
    await expect(fx.lake.loadTable('legacy.v1tbl')).rejects.toThrow(/format-version 1/);
    expect(problems.splice(0)).toEqual([]);
  });

  it('a JdbcCatalog view row is no table: not listed, 404 on load and HEAD, unknown to the lake', async () => {
    expect((await call('GET', '/namespaces/legacy/tables')).json.identifiers.map((i: { name: string }) => i.name).sort()).toEqual(['broken', 'v1tbl', 'v3tbl']);
    const r = await call('GET', '/namespaces/legacy/tables/v_orders');
    expect(r.status).toBe(404);
    expect(r.json.error.type).toBe('NoSuchTableException');
    expect((await call('HEAD', '/namespaces/legacy/tables/v_orders')).status).toBe(404);
    expect((await call('GET', '/namespaces/legacy/tables/v_orders/credentials')).status).toBe(404);
    expect(await fx.lake.tableExists('legacy.v_orders')).toBe(false);
    await expect(fx.lake.loadTable('legacy.v_orders')).rejects.toThrow(/does not exist/);
    await expect(fx.lake.dropTable('legacy.v_orders')).rejects.toThrow(/does not exist/);
    await expect(fx.lake.renameTable('legacy.v_orders', 'legacy.v2')).rejects.toThrow(/does not exist/);
    expect((await fx.db.pool.query(`select table_name from iceberg_tables where iceberg_type = 'VIEW'`)).rows).toEqual([{ table_name: 'v_orders' }]);
    expect(problems.splice(0)).toEqual([]);
  });

  it('a NULL namespace property is left out (properties are string to string)', async () => {
    expect((await call('GET', '/namespaces/legacy')).json).toEqual({ namespace: ['legacy'], properties: { owner: 'ops' } });
    expect(await fx.lake.namespaceProperties('legacy')).toEqual({ owner: 'ops' });
    expect(problems.splice(0)).toEqual([]);
  });

  it('a damaged metadata file answers 500 and is logged with the request path', async () => {
    const lines: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((l) => { lines.push(String(l)); return true; });
    let r;
    try { r = await call('GET', '/namespaces/legacy/tables/broken'); } finally { spy.mockRestore(); }
    expect(r.status).toBe(500);
    expect(r.json.error).toMatchObject({ type: 'InternalServerError', code: 500, message: expect.stringMatching(/is not JSON/) });
    expect(lines.join('')).toMatch(/error\s+iceberg-rest: unhandled error, answered 500 .*path=\/iceberg\/v1\/namespaces\/legacy\/tables\/broken/);
    expect(problems.splice(0)).toEqual([]);
  });

  it('iceberg-js: createNamespaceIfNotExists and createTableIfNotExists find what exists; a real creation is refused', async () => {
    const cat = new IcebergRestCatalog({ baseUrl: fx.url, auth: { type: 'bearer', token: fx.token } });
    await expect(cat.createNamespaceIfNotExists({ namespace: ['sales'] })).resolves.toBeUndefined();
    await expect(cat.createNamespaceIfNotExists({ namespace: ['legacy'] }, { properties: { a: 'b' } })).resolves.toBeUndefined();
    const schema = { type: 'struct' as const, fields: [{ id: 1, name: 'id', type: 'long', required: true }], 'schema-id': 0 };
    const t = await cat.createTableIfNotExists({ namespace: ['sales'] }, { name: 'orders', schema });
    expect(t['format-version']).toBe(2);
    expect(t['current-snapshot-id']).not.toBe(-1);
    expect((await cat.createTableIfNotExists({ namespace: ['legacy'] }, { name: 'v1tbl', schema }))['format-version']).toBe(1);
    const refused = await cat.createNamespaceIfNotExists({ namespace: ['fresh'] }).catch((e) => e);
    expect(refused).toBeInstanceOf(IcebergError);
    expect(refused.status).toBe(406);
    const noNs = await cat.createTable({ namespace: ['nope'] }, { name: 't', schema }).catch((e) => e);
    expect([noNs.status, noNs.icebergType]).toEqual([404, 'NoSuchNamespaceException']);
    expect(await fx.lake.listNamespaces()).not.toContain('fresh');
  });
});
