// GET /api/v1/freshness against a real migrated Postgres: every asset with an
// expectation and its status; an invalid tables.json answers 409 naming the
// file's field; a request without credentials is refused.
import path from 'node:path';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { useRouteServer } from '../test-server';
import * as route from './route';
import { callRoute } from '../test-call';

const fx = useRouteServer({
  name: 'freshness-api', roles: ['viewer'],
  env: (dir) => ({ TRIBUTARY_TABLES_FILE: path.join(dir, 'tables.json') }),
  prepare: async ({ dataDir }) => {
    fs.writeFileSync(path.join(dataDir, 'tables.json'), JSON.stringify({ freshness: { warn_after: '1h' }, tables: [{ table: 'CRM.CUSTOMERS', unique_key: 'ID' }, { table: 'CRM.REGIONS', unique_key: 'ID', freshness: { error_after: { count: 1, period: 'day' } } }] }));
  },
  seed: async ({ db }) => {
    await db.pool.query(`insert into etl_meta.etl_control (namespace, table_name, branch_id, status, last_success_at) values ('etl', 'customers', 'B1', 'SUCCESS', now() - interval '2 hours')`);
  },
});
const tablesFile = () => path.join(fx.dataDir, 'tables.json');

describe('GET /api/v1/freshness', () => {
  it('lists every asset with an expectation, breaches first', async () => {
    const r = await callRoute(route.GET, 'GET', '/api/v1/freshness', { token: fx.tok.viewer });
    expect(r.status).toBe(200);
    expect(r.body.assets.map((a: { asset: string; status: string; declaredIn: string }) => [a.asset, a.status, a.declaredIn])).toEqual([
      ['lake:etl.customers', 'warn', 'tables.json default'],
      ['lake:etl.regions', 'unknown', 'tables.json'],
    ]);
    expect(r.body.assets[0]).toMatchObject({ worstBranch: 'B1', warnAfterSeconds: 3600, errorAfterSeconds: null });
    expect(r.body.assets[0].lagSeconds).toBeGreaterThanOrEqual(7200);
    expect(r.body.counts).toEqual({ pass: 0, warn: 1, error: 0, unknown: 1 });
    expect(r.body.alerts).toBeNull();
  });
  it('refuses a request without credentials', async () => {
    expect((await callRoute(route.GET, 'GET', '/api/v1/freshness')).status).toBe(401);
  });
  it('an invalid tables.json is a 409 naming the field', async () => {
    fs.writeFileSync(tablesFile(), JSON.stringify([{ table: 'CRM.CUSTOMERS', unique_key: 'ID', freshness: { warn_after: '6h', error_after: '1h' } }]));
    const r = await callRoute(route.GET, 'GET', '/api/v1/freshness', { token: fx.tok.viewer });
    expect(r.status).toBe(409);
    expect(r.body.error.message).toMatch(/field freshness\.error_after: must be at least warn_after/);
  });
});
