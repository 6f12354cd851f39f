// The routes behind the Connections, Lake, Data-quality and Overview pages,
// called directly with Request objects against a real migrated Postgres, a real
// warehouse folder and the real job list: TOML export → import round trip,
// deletes refused while a pipeline uses a connection, `connections.test`
// against the test server (and a closed port), lake rows filtered by branch,
// freshness, drift, DQ history with a failed run, and the overview.
import path from 'node:path';
import fs from 'node:fs';
import net from 'node:net';
import * as arrow from 'apache-arrow';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureQueue } from '@/lib/jobs';
import { openLake } from '@/lib/lake';
import { connectionsJobs } from '@/lib/connections/jobs';
import { silentLogger } from '@/lib/log';
import { dqPanelMessage } from '@/lib/api/presenters/dq';
import * as connections from './connections/route';
import * as connection from './connections/[id]/route';
import * as exportToml from './connections/export.toml/route';
import * as importToml from './connections/import/route';
import * as jobs from './jobs/route';
import * as rows from './lake/tables/[ident]/rows/route';
import * as lakeTable from './lake/tables/[ident]/route';
import * as freshness from './lake/freshness/route';
import * as drift from './lake/drift/route';
import * as dqHistory from './dq/history/route';
import * as overview from './overview/route';
import { callRoute } from './test-call';
import { serverDeps } from '@/app/_server/deps';
import { useRouteServer } from './test-server';
import { closedPort } from '@/lib/testing/closed-port';

const fx = useRouteServer({
  name: 'pages-api',
  env: (dir) => ({ TRIBUTARY_TABLES_FILE: path.join(dir, 'tables.json') }),
  prepare: async ({ db, dataDir }) => {
    // A tables.json of two tables, one of which exists in the test database.
    fs.writeFileSync(path.join(dataDir, 'tables.json'), JSON.stringify([
      { table: 'public.shop_orders', unique_key: 'id', cdc_column: 'updated_at' },
      { table: 'public.no_such_table', unique_key: 'id' },
    ]));
    await db.pool.query('create table public.shop_orders (id int primary key, updated_at timestamptz)');
    await ensureQueue(db.pool);
  },
});

const call = callRoute;

function pgParams() {
  const u = new URL(fx.db.url);
  return { params: { host: u.hostname, port: Number(u.port || 5432), database: u.pathname.slice(1), user: decodeURIComponent(u.username) }, password: decodeURIComponent(u.password) };
}

describe('connections: TOML export and import', () => {
  it('exports non-secret fields only, and importing the export gives the same fields and keeps the secrets', async () => {
    const made = await call(connections.POST, 'POST', '/api/v1/connections', { token: fx.tok.admin, body: {
      name: 'north', kind: 'postgres', isBranch: true, branchKey: 'north',
      params: { host: 'db-north.example', port: 5433, database: 'shop', user: 'etl', pool_size: 3 }, secrets: { password: 'never-exported-pw' },
    } });
    expect(made.status).toBe(201);
    await call(connections.POST, 'POST', '/api/v1/connections', { token: fx.tok.admin, body: {
      name: 'south', kind: 'oracle', isBranch: true, branchKey: 'south', params: { host: 'ora-s.example', port: 1521, service_name: 'ORCL', user: 'etl' }, secrets: { password: 'ora-pw' },
    } });
    const before = (await call(connections.GET, 'GET', '/api/v1/connections?branches=true', { token: fx.tok.viewer })).body.connections;

    const exp = await call(exportToml.GET, 'GET', '/api/v1/connections/export.toml', { token: fx.tok.viewer });
    expect(exp.status).toBe(200);
    expect(exp.headers.get('content-type')).toMatch(/toml/);
    expect(exp.text).toContain('[postgres_branches.north]');
    expect(exp.text).toContain('[oracle_branches.south]');
    expect(exp.text).not.toContain('never-exported-pw');
    expect(exp.text).not.toContain('ora-pw');

    expect((await call(importToml.POST, 'POST', '/api/v1/connections/import', { token: fx.tok.operator, body: { toml: exp.text } })).status).toBe(403);
    const imp = await call(importToml.POST, 'POST', '/api/v1/connections/import', { token: fx.tok.admin, body: { toml: exp.text } });
    expect(imp.status).toBe(200);
    expect(imp.body.connections.map((c: { name: string; action: string }) => `${c.name}:${c.action}`).sort()).toEqual(['north:updated', 'south:updated']);
    const after = (await call(connections.GET, 'GET', '/api/v1/connections?branches=true', { token: fx.tok.viewer })).body.connections;
    const pick = (l: { name: string; kind: string; branchKey: string; params: unknown; secretKeys: string[] }[]) => l.map((c) => ({ name: c.name, kind: c.kind, branchKey: c.branchKey, params: c.params, secretKeys: c.secretKeys }));
    expect(pick(after)).toEqual(pick(before));
  });

  it('creates new branches from TOML, and refuses bad TOML or a kind change with 400/409, writing nothing', async () => {
    const count = async () => Number((await fx.db.pool.query('select count(*) from connections')).rows[0].count);
    const n = await count();
    const bad = await call(importToml.POST, 'POST', '/api/v1/connections/import', { token: fx.tok.admin, body: { toml: '[postgres_branches.x\nhost=' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe('toml');
    const env = await call(importToml.POST, 'POST', '/api/v1/connections/import', { token: fx.tok.admin, body: { toml: '[postgres_branches.e]\nhost = "${SECRET_HOST}"\n' } });
    expect(env.status).toBe(400);
    expect(env.body.error.message).toMatch(/not expanded by the panel/);
    // one good new branch + one that changes south's kind: all or nothing
    const mixed = await call(importToml.POST, 'POST', '/api/v1/connections/import', { token: fx.tok.admin, body: { toml: '[postgres_branches.east]\nhost = "e.example"\n\n[postgres_branches.south]\nhost = "s.example"\n' } });
    expect(mixed.status).toBe(409);
    expect(mixed.body.error.message).toMatch(/south/);
    expect(await count()).toBe(n);
    const ok = await call(importToml.POST, 'POST', '/api/v1/connections/import', { token: fx.tok.admin, body: { toml: '[postgres_branches.east]\nhost = "e.example"\nport = 5432\npassword = "pw-east"\n' } });
    expect(ok.body.connections).toEqual([{ name: 'east', branchKey: 'east', kind: 'postgres', action: 'created' }]);
    const east = (await call(connection.GET, 'GET', '/api/v1/connections/east', { token: fx.tok.viewer, params: { id: 'east' } })).body;
    expect(east).toMatchObject({ isBranch: true, params: { host: 'e.example', port: 5432 }, secretKeys: ['password'] });
  });
});

describe('connections: delete refused while in use', () => {
  it('names the pipelines and flows whose specs use the connection, and deletes once they are gone', async () => {
    await call(connections.POST, 'POST', '/api/v1/connections', { token: fx.tok.admin, body: { name: 'mailer', kind: 'smtp', params: { host: 'smtp.example', port: 25, from: 'ops@example.com' } } });
    // The flows engine's tables (migration 0007_flows on main); made here, in its shape, when this database lacks them.
    const had = (await fx.db.pool.query("select to_regclass('public.pipelines') is not null as p")).rows[0].p as boolean;
    if (!had) {
      await fx.db.pool.query(`create table public.pipelines (id uuid primary key, name text unique not null, description text not null default '', kind text not null, params jsonb not null default '{}')`);
      await fx.db.pool.query(`create table public.flows (id uuid primary key, name text unique not null, description text not null default '', nodes jsonb not null default '[]', smtp_connection text)`);
    }
    await fx.db.pool.query(`insert into pipelines (id, name, kind, params) values (gen_random_uuid(), 'nightly-north', 'etl.run', '{"mode":"INCREMENTAL","branch":["north"]}'), (gen_random_uuid(), 'mailer', 'dq.run', '{}')`);
    await fx.db.pool.query(`insert into flows (id, name, nodes, smtp_connection) values (gen_random_uuid(), 'nightly', '[{"id":"a","kind":"dq.run","params":{"branch":["east"]}}]', 'mailer')`);

    const north = await call(connection.DELETE, 'DELETE', '/api/v1/connections/north', { token: fx.tok.admin, params: { id: 'north' } });
    expect(north.status).toBe(409);
    expect(north.body.error.message).toContain("pipeline 'nightly-north'");
    const mailer = await call(connection.DELETE, 'DELETE', '/api/v1/connections/mailer', { token: fx.tok.admin, params: { id: 'mailer' } });
    expect(mailer.status).toBe(409);
    // a pipeline that is merely named like the connection does not use it
    expect(mailer.body.error.message).toBe("connections: 'mailer' is used by flow 'nightly': change or delete it first");
    const east = await call(connection.DELETE, 'DELETE', '/api/v1/connections/east', { token: fx.tok.admin, params: { id: 'east' } });
    expect(east.body.error.message).toContain("flow 'nightly'");
    expect((await fx.db.pool.query("select count(*) from connections where name in ('north','mailer','east')")).rows[0].count).toBe('3');

    await fx.db.pool.query("delete from pipelines where name = 'nightly-north'");
    expect((await call(connection.DELETE, 'DELETE', '/api/v1/connections/north', { token: fx.tok.admin, params: { id: 'north' } })).status).toBe(200);
    if (had) await fx.db.pool.query("delete from pipelines where name = 'mailer'; delete from flows where name = 'nightly'");
    else await fx.db.pool.query('drop table public.pipelines, public.flows');
  });
});

describe('connections.test', () => {
  const def = connectionsJobs[0];
  const run = async (name: string) => {
    const { env, pool } = serverDeps();
    const ctx = { runId: 'r', pool, env, logger: silentLogger, signal: new AbortController().signal, progress: () => {} };
    try { return { ok: true, result: await def.run(ctx, def.payload.parse({ name })) as any }; } // eslint-disable-line @typescript-eslint/no-explicit-any
    catch (e) { return { ok: false, error: (e as Error).message, result: (e as { result?: any }).result }; } // eslint-disable-line @typescript-eslint/no-explicit-any
  };

  it('is checked when posted: an unknown connection is a 400 naming params.name; viewers may not start it', async () => {
    const r = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: fx.tok.operator, body: { kind: 'connections.test', params: { name: 'nope' } } });
    expect(r.status).toBe(400);
    expect(r.body.error.field).toBe('params.name');
    expect((await call(jobs.POST, 'POST', '/api/v1/jobs', { token: fx.tok.viewer, body: { kind: 'connections.test', params: { name: 'south' } } })).status).toBe(403);
    const ok = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: fx.tok.operator, body: { kind: 'connections.test', params: { name: 'south' } } });
    expect(ok.status).toBe(202);
  });

  it('reaches the test Postgres: version, latency, and which tables of tables.json the branch has', async () => {
    const { params, password } = pgParams();
    expect((await call(connections.POST, 'POST', '/api/v1/connections', { token: fx.tok.admin, body: { name: 'local', kind: 'postgres', isBranch: true, branchKey: 'local', params, secrets: { password } } })).status).toBe(201);
    const r = await run('local');
    expect(r.ok).toBe(true);
    expect(r.result).toMatchObject({ name: 'local', kind: 'postgres', reachable: true, error: null });
    expect(r.result.serverVersion).toMatch(/^PostgreSQL \d+/);
    expect(typeof r.result.latencyMs).toBe('number');
    expect(r.result.tables.map((t: { table: string; exists: boolean }) => [t.table, t.exists])).toEqual([['shop_orders', true], ['no_such_table', false]]);
    expect(r.result.tables[1].error).toMatch(/does not exist/);
  });

  it('a closed port is unreachable, with the reason, and fails the run carrying the result', async () => {
    const { params, password } = pgParams();
    const port = await closedPort();
    await call(connections.POST, 'POST', '/api/v1/connections', { token: fx.tok.admin, body: { name: 'dead', kind: 'postgres', params: { ...params, port }, secrets: { password } } });
    const r = await run('dead');
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/dead is unreachable: cannot connect: .*(ECONNREFUSED|refused)/);
    expect(r.result).toMatchObject({ reachable: false, serverVersion: null, latencyMs: null });
  });

  it('tests an SMTP connection with a real server, and a ClickHouse-like HTTP server by GET', async () => {
    const { SMTPServer } = await import('smtp-server');
    const smtp = new SMTPServer({ authOptional: true, disabledCommands: ['STARTTLS'], logger: false });
    await new Promise<void>((res) => smtp.listen(0, '127.0.0.1', () => res()));
    const http = await import('node:http');
    const ch = http.createServer((req, res) => { res.end(req.url?.startsWith('/ping') ? 'Ok.\n' : '25.3.1.1\n'); });
    await new Promise<void>((res) => ch.listen(0, '127.0.0.1', () => res()));
    try {
      const sp = (smtp.server.address() as net.AddressInfo).port;
      await call(connections.POST, 'POST', '/api/v1/connections', { token: fx.tok.admin, body: { name: 'relay', kind: 'smtp', params: { host: '127.0.0.1', port: sp, from: 'ops@example.com' } } });
      const s = await run('relay');
      expect(s.result).toMatchObject({ reachable: true, error: null });
      const cp = (ch.address() as net.AddressInfo).port;
      await call(connections.POST, 'POST', '/api/v1/connections', { token: fx.tok.admin, body: { name: 'ch', kind: 'clickhouse', params: { http_url: `http://127.0.0.1:${cp}` } } });
      const c = await run('ch');
      expect(c.result).toMatchObject({ reachable: true, serverVersion: '25.3.1.1', error: null });
    } finally {
      await new Promise<void>((res) => smtp.close(() => res()));
      await new Promise<void>((res) => ch.close(() => res()));
    }
  });
});

describe('lake pages', () => {
  beforeAll(async () => {
    const { env } = serverDeps();
    const lake = openLake({ pool: fx.db.pool, warehouse: env.warehouse });
    const schema = new arrow.Schema([
      new arrow.Field('ID', new arrow.Int64(), false),
      new arrow.Field('AMOUNT', new arrow.Decimal(2, 10, 128), true),
      new arrow.Field('DAY', new arrow.DateDay(), true),
      new arrow.Field('BRANCH_ID', new arrow.Utf8(), false),
    ]);
    const t = await lake.createTable('shop.orders', { schema, partitionBy: ['BRANCH_ID'], identifierColumns: ['ID', 'BRANCH_ID'] });
    const batch = (ids: number[], branch: string) => {
      const dec = new Uint32Array(ids.length * 4);
      ids.forEach((id, i) => { dec[i * 4] = id * 150; }); // id × 1.50
      const cols = [
        arrow.vectorFromArray(ids.map(BigInt), new arrow.Int64()).data[0],
        arrow.makeData({ type: new arrow.Decimal(2, 10, 128), length: ids.length, nullCount: 0, data: dec }),
        arrow.vectorFromArray(ids.map((i) => new Date(Date.UTC(2026, 0, i))), new arrow.DateDay()).data[0],
        arrow.vectorFromArray(ids.map(() => branch), new arrow.Utf8()).data[0],
      ];
      return new arrow.RecordBatch(schema, arrow.makeData({ type: new arrow.Struct(schema.fields), length: ids.length, nullCount: 0, children: cols }));
    };
    await t.append([batch([1, 2, 3], 'a'), batch([4, 5], 'b')]);
    await t.deleteWhere({ partition: { BRANCH_ID: 'b' } });
  });

  it('previews rows, filtered by branch, JSON-safe (64-bit ints and decimals as strings, dates ISO)', async () => {
    const all = await call(rows.GET, 'GET', '/api/v1/lake/tables/shop.orders/rows', { token: fx.tok.viewer, params: { ident: 'shop.orders' } });
    expect(all.status).toBe(200);
    expect(all.body.columns.map((c: { name: string }) => c.name)).toEqual(['ID', 'AMOUNT', 'DAY', 'BRANCH_ID']);
    expect(all.body.rows).toHaveLength(3); // branch b was deleted
    const a = await call(rows.GET, 'GET', '/api/v1/lake/tables/shop.orders/rows?branch=a&limit=2', { token: fx.tok.viewer, params: { ident: 'shop.orders' } });
    expect(a.body.rows).toEqual([
      { ID: '1', AMOUNT: '1.50', DAY: '2026-01-01', BRANCH_ID: 'a' },
      { ID: '2', AMOUNT: '3.00', DAY: '2026-01-02', BRANCH_ID: 'a' },
    ]);
    expect(a.body.truncated).toBe(true);
    const none = await call(rows.GET, 'GET', '/api/v1/lake/tables/shop.orders/rows?branch=zz', { token: fx.tok.viewer, params: { ident: 'shop.orders' } });
    expect(none.body.rows).toEqual([]);
    const bad = await call(rows.GET, 'GET', '/api/v1/lake/tables/shop.orders/rows?limit=5000', { token: fx.tok.viewer, params: { ident: 'shop.orders' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe('query.limit');
    expect((await call(rows.GET, 'GET', '/api/v1/lake/tables/shop.none/rows', { token: fx.tok.viewer, params: { ident: 'shop.none' } })).status).toBe(404);
  });

  it('the table answer carries the snapshot timeline: rows added and deleted per snapshot, oldest first', async () => {
    const d = await call(lakeTable.GET, 'GET', '/api/v1/lake/tables/shop.orders', { token: fx.tok.viewer, params: { ident: 'shop.orders' } });
    expect(d.body.timeline.map((p: { added: number; deleted: number }) => [p.added, p.deleted])).toEqual([[5, 0], [0, 2]]);
  });

  it('freshness per table × branch and schema drift from etl_meta', async () => {
    await fx.db.pool.query(`insert into etl_meta.etl_control (table_name, branch_id, last_cdc_value, status, row_count, last_run_finished_at, last_success_at, error_details)
      values ('orders', 'a', '2026-01-03 00:00:00', 'SUCCESS', 3, now() - interval '2 hours', now() - interval '2 hours', null),
             ('orders', 'b', null, 'FAILED', 0, now() - interval '1 hour', null, 'relation "orders" does not exist')`);
    await fx.db.pool.query(`insert into etl_meta.control_state (table_name, branch_id, last_cdc_value, updated_at) values ('orders', 'a', '2026-01-04 00:00:00', now() - interval '2 hours')`);
    await fx.db.pool.query(`insert into etl_meta.etl_run_log (pipeline_run_id, table_name, branch_id, mode, status, started_at, schema_discrepancy)
      values ('r1', 'orders', 'a', 'INCREMENTAL', 'SUCCESS', now() - interval '3 hours', '["AMOUNT: decimal(10,2) → decimal(12,2)"]'),
             ('r2', 'orders', 'a', 'INCREMENTAL', 'SUCCESS', now() - interval '2 hours', null),
             ('r3', 'orders', 'b', 'INCREMENTAL', 'SUCCESS', now() - interval '1 hours', '[{"column":"AMOUNT","kind":"widened","types":{"a":"decimal(10,2)","b":"decimal(12,2)"},"resolved":"decimal(12,2)"}]')`);
    const f = await call(freshness.GET, 'GET', '/api/v1/lake/freshness', { token: fx.tok.viewer });
    expect(f.body.tables).toEqual(['orders']);
    expect(f.body.branches).toEqual(['a', 'b']);
    const a = f.body.cells.find((c: { branch: string }) => c.branch === 'a');
    expect(a).toMatchObject({ status: 'SUCCESS', watermark: '2026-01-04 00:00:00', rowCount: 3 });
    expect(a.ageSeconds).toBeGreaterThanOrEqual(7200);
    expect(f.body.cells.find((c: { branch: string }) => c.branch === 'b')).toMatchObject({ status: 'FAILED', ageSeconds: null, lastSuccessAt: null });
    const d = await call(drift.GET, 'GET', '/api/v1/lake/drift?table=orders', { token: fx.tok.viewer });
    expect(d.body.drift).toHaveLength(2);
    expect(d.body.drift[1]).toMatchObject({ runId: 'r1', table: 'orders', branch: 'a', changes: ['AMOUNT: decimal(10,2) → decimal(12,2)'] });
    // ETL's own drift records read as sentences
    expect(d.body.drift[0].changes).toEqual(['AMOUNT: widened (a: decimal(10,2), b: decimal(12,2)) → decimal(12,2)']);
  });
});

describe('data quality history', () => {
  it('returns every check oldest first per pair with delta and mismatches, filters, and failed runs with a panel message', async () => {
    await fx.db.pool.query(`insert into etl_meta.etl_dq_results (pipeline_run_id, table_name, branch_id, status, oracle_row_count, iceberg_row_count, row_count_delta,
        hash_matched, hash_only_in_oracle, hash_only_in_iceberg, hash_mismatch, checked_at) values
      ('dq-1', 'orders', 'a', 'MISMATCH', 10, 8, 2, 7, 2, 0, 1, now() - interval '2 days'),
      ('dq-2', 'orders', 'a', 'OK', 10, 10, 0, 10, 0, 0, 0, now() - interval '1 day'),
      ('dq-2', 'orders', 'b', 'OK', 5, 5, 0, 5, 0, 0, 0, now() - interval '1 day')`);
    await fx.db.pool.query(`insert into job_runs (id, kind, params, status, error, created_at, finished_at) values
      (gen_random_uuid(), 'dq.run', '{"branch":["a"]}', 'failed', 'dq: no branches configured — add connections marked as branches (Connections page, or \`tributary connections import\`)', now(), now())`);
    const h = await call(dqHistory.GET, 'GET', '/api/v1/dq/history?table=orders&branch=a', { token: fx.tok.viewer });
    expect(h.status).toBe(200);
    expect(h.body.points.map((p: { delta: number; mismatches: number; status: string }) => [p.status, p.delta, p.mismatches])).toEqual([['MISMATCH', 2, 3], ['OK', 0, 0]]);
    expect(h.body.pairs).toEqual([{ table: 'orders', branch: 'a' }]);
    expect(h.body.failedRuns).toHaveLength(1);
    expect(h.body.failedRuns[0].error).not.toMatch(/tributary|--/);
    expect(h.body.failedRuns[0].error).toMatch(/Connections page/);
    const since = await call(dqHistory.GET, 'GET', `/api/v1/dq/history?since=${new Date(Date.now() - 36 * 3600e3).toISOString()}`, { token: fx.tok.viewer });
    expect(since.body.points).toHaveLength(2);
    const ok = await call(dqHistory.GET, 'GET', '/api/v1/dq/history?status=OK', { token: fx.tok.viewer });
    expect(ok.body.points.every((p: { status: string }) => p.status === 'OK')).toBe(true);
    expect(ok.body.failedRuns).toEqual([]);
    const bad = await call(dqHistory.GET, 'GET', '/api/v1/dq/history?since=yesterday', { token: fx.tok.viewer });
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe('query.since');
  });

  it('says CLI words the panel way', () => {
    expect(dqPanelMessage('--branch: unknown branch x (known: a)')).toBe('branch: unknown branch x (known: a)');
    expect(dqPanelMessage('params.tables[0]: unknown table "x"')).toBe('tables[0]: unknown table "x"');
  });
});

describe('overview', () => {
  it('shows workers alive with heartbeat age, queue depth, runs per hour, failing units, freshness and DQ', async () => {
    await fx.db.pool.query(`insert into workers (id, hostname, pid, concurrency, heartbeat_at) values ('h1:1:aa', 'h1', 1, 2, now() - interval '3 seconds'), ('h2:2:bb', 'h2', 2, 2, now() - interval '10 minutes')`);
    await fx.db.pool.query(`insert into job_runs (id, kind, status, created_at) values (gen_random_uuid(), 'system.check', 'queued', now()), (gen_random_uuid(), 'etl.run', 'succeeded', now() - interval '5 hours')`);
    const o = await call(overview.GET, 'GET', '/api/v1/overview', { token: fx.tok.viewer });
    expect(o.status).toBe(200);
    expect(o.body.workers.map((w: { id: string; alive: boolean }) => [w.id, w.alive])).toEqual([['h1:1:aa', true], ['h2:2:bb', false]]);
    expect(o.body.workers[0].ageSeconds).toBeGreaterThanOrEqual(3);
    expect(o.body.queue.queued).toBeGreaterThanOrEqual(2); // this one and the connections.test posted above
    expect(o.body.runsPerHour).toHaveLength(24);
    const sum = (k: string) => o.body.runsPerHour.reduce((a: number, b: Record<string, number>) => a + b[k], 0);
    expect(sum('succeeded')).toBe(1);
    expect(sum('failed')).toBe(1);
    expect(o.body.failingUnits).toEqual([expect.objectContaining({ table: 'orders', branch: 'b', status: 'FAILED' })]);
    expect(o.body.freshness).toMatchObject({ units: 2, neverLoaded: 1, stale: 0 });
    expect(o.body.dq).toMatchObject({ pairs: 2, OK: 2, MISMATCH: 0 });
    expect(o.body.dq.lastRun.failed).toBe(true);
    expect((await call(overview.GET, 'GET', '/api/v1/overview')).status).toBe(401);
  });
});
