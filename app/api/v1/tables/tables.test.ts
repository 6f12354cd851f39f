// GET|PUT /api/v1/tables against a real migrated Postgres and a real tables.json
// file: roles, validation naming the entry and field, optimistic versions,
// an atomic write the CLI's loader reads back, and an audit row.
import path from 'node:path';
import fs from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadTablesConfig } from '@/lib/config/tables-json';
import * as tables from './route';
import { callRoute as call } from '../test-call';
import { useRouteServer } from '../test-server';

const fx = useRouteServer({
  name: 'tables-api',
  env: (dir) => ({ TRIBUTARY_TABLES_FILE: path.join(dir, 'tables.json') }),
  prepare: async ({ dataDir }) => {
    fs.writeFileSync(path.join(dataDir, 'tables.json'), JSON.stringify([{ table: 'public.customers', unique_key: 'id', cdc_column: 'updated_at' }]));
  },
});
const tok = fx.tok;
let file: string;
beforeAll(() => { file = path.join(fx.dataDir, 'tables.json'); });

describe('/api/v1/tables', () => {
  it('reads the file: entries as written, their lake tables, a version', async () => {
    const r = await call(tables.GET, 'GET', '/api/v1/tables', { token: tok.viewer });
    expect(r.status).toBe(200);
    expect(r.body.entries).toEqual([{ table: 'public.customers', unique_key: 'id', cdc_column: 'updated_at' }]);
    expect(r.body.tables).toEqual([{ lakeName: 'customers', source: 'public.customers', category: 'masters', uniqueKey: ['ID'] }]);
    expect(r.body.version).toMatch(/^[0-9a-f]{64}$/);
  });

  it('only admins write it; a bad entry is a 400 naming it and the file is untouched', async () => {
    const before = fs.readFileSync(file, 'utf8');
    const { version } = (await call(tables.GET, 'GET', '/api/v1/tables', { token: tok.viewer })).body;
    const entries = [{ table: 'public.customers', unique_key: 'id' }];
    for (const who of ['viewer', 'operator'] as const) expect((await call(tables.PUT, 'PUT', '/api/v1/tables', { token: tok[who], body: { entries, version } })).status).toBe(403);
    const bad = await call(tables.PUT, 'PUT', '/api/v1/tables', { token: tok.admin, body: { entries: [...entries, { table: 'public.orders', unique_key: 'id', where_operator: 'LIKE', where_date_column: 'd', where_value_of_initial_run: '2026-01-01' }], version } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe('tables[1].where_operator');
    const unknown = await call(tables.PUT, 'PUT', '/api/v1/tables', { token: tok.admin, body: { entries: [{ table: 'public.a', unique_key: 'id', watermark: 'x' }], version } });
    expect(unknown.body.error.field).toBe('tables[0].watermark');
    const dup = await call(tables.PUT, 'PUT', '/api/v1/tables', { token: tok.admin, body: { entries: [{ table: 'a.t', unique_key: 'id' }, { table: 'b.t', unique_key: 'id' }], version } });
    expect(dup.body.error).toMatchObject({ field: 'tables[1].name', message: expect.stringMatching(/duplicate lake table name "t"/) });
    expect(fs.readFileSync(file, 'utf8')).toBe(before);
  });

  it('saves atomically what the CLI then loads, refuses a stale version, and audits the change', async () => {
    const { version } = (await call(tables.GET, 'GET', '/api/v1/tables', { token: tok.admin })).body;
    const entries = [
      { table: 'public.customers', unique_key: 'id', cdc_column: 'updated_at' },
      { table: 'public.payment', unique_key: ['payment_id', 'payment_date'], cdc_column: 'payment_date', where_date_column: 'payment_date', where_operator: '>=', where_value_of_initial_run: '2022-01-01' },
    ];
    const ok = await call(tables.PUT, 'PUT', '/api/v1/tables', { token: tok.admin, body: { entries, version } });
    expect(ok.status).toBe(200);
    expect(ok.body.version).not.toBe(version);
    expect((await loadTablesConfig(file)).map((d) => d.lakeName)).toEqual(['customers', 'payment']);
    expect(fs.readdirSync(fx.dataDir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    // The editor that read the first version must reload: its save would drop the other change.
    const stale = await call(tables.PUT, 'PUT', '/api/v1/tables', { token: tok.admin, body: { entries: entries.slice(0, 1), version } });
    expect(stale.status).toBe(409);
    expect((await loadTablesConfig(file)).length).toBe(2);
    const audit = (await fx.db.pool.query(`select actor, after from audit_events where action = 'tables.update'`)).rows;
    expect(audit).toEqual([{ actor: expect.stringMatching(/root/), after: { tables: ['customers', 'payment'] } }]);
  });

  it('the object form keeps its file-wide settings: only the entries are edited', async () => {
    fs.writeFileSync(file, JSON.stringify({ naming: 'preserve', tables: [{ table: 'public.film', unique_key: 'film_id' }] }));
    const r = await call(tables.GET, 'GET', '/api/v1/tables', { token: tok.admin });
    expect(r.body).toMatchObject({ settings: { naming: 'preserve' }, entries: [{ table: 'public.film', unique_key: 'film_id' }] });
    const saved = await call(tables.PUT, 'PUT', '/api/v1/tables', { token: tok.admin, body: { entries: [...r.body.entries, { table: 'public.actor', unique_key: 'actor_id' }], version: r.body.version } });
    expect(saved.status).toBe(200);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ naming: 'preserve', tables: [{ table: 'public.film', unique_key: 'film_id' }, { table: 'public.actor', unique_key: 'actor_id' }] });
  });
});
