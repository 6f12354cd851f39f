// The engine-facing /api/v1 routes (connections, etl, slices, lake) called
// directly with Request objects against a real migrated Postgres and a real
// warehouse folder: roles, validation naming the field, secrets never answered,
// and the read routes showing what the engines wrote.
import path from 'node:path';
import * as arrow from 'apache-arrow';
import { beforeAll, describe, expect, it } from 'vitest';
import { getBranches } from '@/lib/connections';
import { openLake } from '@/lib/lake';
import { registerSlices } from '@/lib/slices';
import * as connections from './connections/route';
import * as connection from './connections/[id]/route';
import * as etlControl from './etl/control/route';
import * as etlRuns from './etl/runs/route';
import * as sliceRuns from './slices/runs/route';
import * as board from './slices/runs/[id]/board/route';
import * as slices from './slices/runs/[id]/slices/route';
import * as lakeTables from './lake/tables/route';
import * as lakeTable from './lake/tables/[ident]/route';
import { callRoute } from './test-call';
import { serverDeps } from '@/app/_server/deps';
import { useRouteServer } from './test-server';

const BASE = 'http://127.0.0.1:8765';
const fx = useRouteServer({ name: 'engines-api' });

const call = callRoute;

describe('connections', () => {
  const branch = {
    name: 'branch_a', kind: 'postgres', isBranch: true, branchKey: 'a',
    params: { host: 'db-a.example', port: 5432, database: 'shop', user: 'etl' },
    secrets: { password: 'hunter2-very-secret' },
  };
  let id = '';

  it('needs credentials; viewers and operators cannot create (403) and nothing is written', async () => {
    expect((await call(connections.GET, 'GET', '/api/v1/connections')).status).toBe(401);
    for (const who of ['viewer', 'operator'] as const) {
      const r = await call(connections.POST, 'POST', '/api/v1/connections', { token: fx.tok[who], body: branch });
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe('forbidden');
    }
    expect((await fx.db.pool.query('select count(*)::int n from connections')).rows[0].n).toBe(0);
  });

  it('bad bodies → 400 naming the field', async () => {
    const cases: [unknown, string][] = [
      [{ ...branch, kind: 'mysql' }, 'kind'],
      [{ ...branch, name: 'has space' }, 'name'],
      [{ ...branch, branchKey: undefined }, 'branchKey'],
      [{ ...branch, kind: 'striim', params: { node: 'x:9080' } }, 'kind'],
      [{ ...branch, secrets: { password: 42 } }, 'secrets.password'],
      [{ ...branch, surprise: true }, 'surprise'],
      [{ ...branch, params: { database: 'shop' } }, 'params.host'],
      [{ ...branch, params: { ...branch.params, port: 'fifty' } }, 'params.port'],
      [{ ...branch, params: { ...branch.params, password: 'oops' } }, 'params.password'],
      [{ name: 'ora', kind: 'oracle', isBranch: true, branchKey: 'o', params: { host: 'ora1' } }, 'params.service_name'],
    ];
    for (const [body, field] of cases) {
      const r = await call(connections.POST, 'POST', '/api/v1/connections', { token: fx.tok.admin, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.field, JSON.stringify(r.body)).toBe(field);
    }
    const malformed = await connections.POST(new Request(BASE + '/api/v1/connections', { method: 'POST', headers: { authorization: `Bearer ${fx.tok.admin}` }, body: '{"name":' }), { params: Promise.resolve({}) });
    expect(malformed.status).toBe(400);
    expect((await fx.db.pool.query('select count(*)::int n from connections')).rows[0].n).toBe(0);
  });

  it('an admin creates a branch: 201, secrets encrypted at rest and never answered', async () => {
    const r = await call(connections.POST, 'POST', '/api/v1/connections', { token: fx.tok.admin, body: branch });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ name: 'branch_a', kind: 'postgres', isBranch: true, branchKey: 'a', params: branch.params, secretKeys: ['password'] });
    expect(r.text).not.toContain('hunter2');
    id = r.body.id;
    const stored = (await fx.db.pool.query('select * from connections where id = $1', [id])).rows[0];
    expect(JSON.stringify(stored)).not.toContain('hunter2');
    expect(stored.secrets_enc).toMatch(/^v1:/);
    // The engines still get the secret back.
    const [b] = await getBranches({ pool: fx.db.pool, keys: { secret: fx.secret, dataDir: fx.dataDir } });
    expect(b).toMatchObject({ key: 'a', secrets: { password: 'hunter2-very-secret' } });

    const svc = await call(connections.POST, 'POST', '/api/v1/connections', { token: fx.tok.admin, body: {
      name: 'striim_prod', kind: 'striim', params: { node: 'striim:9080', admin_user: 'admin' }, secrets: { admin_pwd: 'striim-pass-xyz' } } });
    expect(svc.status).toBe(201);
    expect(svc.text).not.toContain('striim-pass-xyz');

    const dup = await call(connections.POST, 'POST', '/api/v1/connections', { token: fx.tok.admin, body: { ...branch, branchKey: 'b' } });
    expect(dup.status).toBe(409);
    expect(dup.body.error.field).toBe('name');
    const dupKey = await call(connections.POST, 'POST', '/api/v1/connections', { token: fx.tok.admin, body: { ...branch, name: 'branch_a2' } });
    expect(dupKey.status).toBe(409);
    expect(dupKey.body.error.field).toBe('branchKey');
  });

  it('viewers list and read them, without secret values', async () => {
    const list = await call(connections.GET, 'GET', '/api/v1/connections', { token: fx.tok.viewer });
    expect(list.status).toBe(200);
    expect(list.body.connections.map((c: { name: string }) => c.name)).toEqual(['branch_a', 'striim_prod']);
    expect(list.text).not.toMatch(/hunter2|striim-pass-xyz|secrets_enc|v1:/);
    const branches = await call(connections.GET, 'GET', '/api/v1/connections?branches=true', { token: fx.tok.viewer });
    expect(branches.body.connections.map((c: { name: string }) => c.name)).toEqual(['branch_a']);
    expect((await call(connections.GET, 'GET', '/api/v1/connections?kind=nope', { token: fx.tok.viewer })).body.error.field).toBe('query.kind');
    for (const key of [id, 'branch_a']) {
      const one = await call(connection.GET, 'GET', `/api/v1/connections/${key}`, { token: fx.tok.viewer, params: { id: key } });
      expect(one.status).toBe(200);
      expect(one.body).toMatchObject({ id, secretKeys: ['password'] });
      expect(one.text).not.toContain('hunter2');
    }
    expect((await call(connection.GET, 'GET', '/api/v1/connections/nope', { token: fx.tok.viewer, params: { id: 'nope' } })).status).toBe(404);
  });

  it('admins patch params and secrets; unnamed secrets are kept; bad patches change nothing', async () => {
    const keys = { pool: fx.db.pool, keys: { secret: fx.secret, dataDir: fx.dataDir } };
    expect((await call(connection.PATCH, 'PATCH', `/api/v1/connections/${id}`, { token: fx.tok.operator, params: { id }, body: { params: { port: 6543 } } })).status).toBe(403);
    const bad = await call(connection.PATCH, 'PATCH', `/api/v1/connections/${id}`, { token: fx.tok.admin, params: { id }, body: { params: { host: null } } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe('params.host');
    const badType = await call(connection.PATCH, 'PATCH', `/api/v1/connections/${id}`, { token: fx.tok.admin, params: { id }, body: { params: { port: 'x' } } });
    expect(badType.body.error.field).toBe('params.port');
    const unknown = await call(connection.PATCH, 'PATCH', `/api/v1/connections/${id}`, { token: fx.tok.admin, params: { id }, body: { kind: 'oracle' } });
    expect(unknown.status).toBe(400);
    expect((await getBranches(keys))[0]).toMatchObject({ params: branch.params, secrets: { password: 'hunter2-very-secret' } });

    const ok = await call(connection.PATCH, 'PATCH', `/api/v1/connections/${id}`, { token: fx.tok.admin, params: { id }, body: { params: { port: 6543 }, secrets: { sslkey: 'k-123' } } });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ params: { ...branch.params, port: 6543 }, secretKeys: ['password', 'sslkey'] });
    expect(ok.text).not.toMatch(/hunter2|k-123/);
    expect((await getBranches(keys))[0].secrets).toEqual({ password: 'hunter2-very-secret', sslkey: 'k-123' });
    const removed = await call(connection.PATCH, 'PATCH', `/api/v1/connections/branch_a`, { token: fx.tok.admin, params: { id: 'branch_a' }, body: { secrets: { sslkey: null } } });
    expect(removed.body.secretKeys).toEqual(['password']);
    expect((await call(connection.PATCH, 'PATCH', '/api/v1/connections/nope', { token: fx.tok.admin, params: { id: 'nope' }, body: {} })).status).toBe(404);
  });

  it('only admins delete', async () => {
    expect((await call(connection.DELETE, 'DELETE', `/api/v1/connections/${id}`, { token: fx.tok.operator, params: { id } })).status).toBe(403);
    const del = await call(connection.DELETE, 'DELETE', `/api/v1/connections/${id}`, { token: fx.tok.admin, params: { id } });
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({ deleted: id, name: 'branch_a' });
    expect((await call(connection.DELETE, 'DELETE', `/api/v1/connections/${id}`, { token: fx.tok.admin, params: { id } })).status).toBe(404);
  });
});

describe('etl control and run log', () => {
  beforeAll(async () => {
    await fx.db.pool.query(`insert into etl_meta.etl_control (table_name, branch_id, last_cdc_value, status, row_count, duration_ms, pipeline_run_id)
      values ('orders', 'a', '2026-05-01 10:00:00', 'SUCCESS', 1200, 3400, 'etl-1'), ('orders', 'b', null, 'FAILED', 0, 10, 'etl-1'),
             ('customers', 'a', '77', 'SUCCESS', 50, 100, 'etl-1')`);
    await fx.db.pool.query(`insert into etl_meta.etl_run_log (pipeline_run_id, table_name, branch_id, mode, status, row_count, started_at, finished_at, duration_ms, attempts, schema_discrepancy)
      values ('etl-1', 'orders', 'a', 'INITIAL', 'SUCCESS', 1200, now() - interval '1 minute', now(), 3400, 1, '{"AMOUNT":"decimal(10,2) ∪ decimal(12,4)"}'),
             ('etl-1', 'orders', 'b', 'INITIAL', 'FAILED', 0, now() - interval '1 minute', now(), 10, 6, null),
             ('etl-2', 'orders', 'a', 'INCREMENTAL', 'SUCCESS', 12, now(), now(), 200, 1, null)`);
  });

  it('control rows per table × branch, filtered', async () => {
    expect((await call(etlControl.GET, 'GET', '/api/v1/etl/control')).status).toBe(401);
    const all = await call(etlControl.GET, 'GET', '/api/v1/etl/control', { token: fx.tok.viewer });
    expect(all.status).toBe(200);
    expect(all.body.control.map((r: { table_name: string; branch_id: string }) => `${r.table_name}@${r.branch_id}`)).toEqual(['customers@a', 'orders@a', 'orders@b']);
    const one = await call(etlControl.GET, 'GET', '/api/v1/etl/control?table=orders&branch=b', { token: fx.tok.viewer });
    expect(one.body.control).toHaveLength(1);
    expect(one.body.control[0]).toMatchObject({ status: 'FAILED' });
  });

  it('run-log rows newest first, filtered by run, table, branch, status, limit', async () => {
    const all = await call(etlRuns.GET, 'GET', '/api/v1/etl/runs', { token: fx.tok.viewer });
    expect(all.body.runs.map((r: { pipeline_run_id: string }) => r.pipeline_run_id)).toEqual(['etl-2', 'etl-1', 'etl-1']);
    expect(all.body.runs[2].schema_discrepancy).toEqual({ AMOUNT: 'decimal(10,2) ∪ decimal(12,4)' });
    const failed = await call(etlRuns.GET, 'GET', '/api/v1/etl/runs?pipeline_run_id=etl-1&status=FAILED', { token: fx.tok.viewer });
    expect(failed.body.runs).toHaveLength(1);
    expect(failed.body.runs[0]).toMatchObject({ branch_id: 'b', attempts: 6 });
    expect((await call(etlRuns.GET, 'GET', '/api/v1/etl/runs?table=orders&branch=a&limit=1', { token: fx.tok.viewer })).body.runs).toHaveLength(1);
    const bad = await call(etlRuns.GET, 'GET', '/api/v1/etl/runs?limit=0', { token: fx.tok.viewer });
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe('query.limit');
    expect((await call(etlRuns.GET, 'GET', '/api/v1/etl/runs?status=GREAT', { token: fx.tok.viewer })).body.error.field).toBe('query.status');
  });
});

describe('slices', () => {
  beforeAll(async () => {
    await registerSlices(fx.db.pool, { runId: 7, executor: 'native', slices: Array.from({ length: 5 }, (_, i) => ({ query: `select * from t where id % 5 = ${i}`, target: 'public.t_copy' })) });
    await fx.db.pool.query(`update striim_orchestration set status = 'COMPLETED', started_datetime = now() - interval '20 seconds', finished_datetime = now() - interval '5 seconds', rows_written = 1000
      where uniquerunid = 7 and roworder in (1, 2)`);
    await fx.db.pool.query(`update striim_orchestration set status = 'RUNNING', started_datetime = now() - interval '10 seconds', rows_written = 500, namespace = 'ILA_7_3', attempts = 1
      where uniquerunid = 7 and roworder = 3`);
    await fx.db.pool.query(`update striim_orchestration set status = 'QUARANTINED', attempts = 3, notes = 'deploy failed [quarantined after 3 attempts]' where uniquerunid = 7 and roworder = 4`);
    await fx.db.pool.query(`insert into slice_run_events (run_id, level, kind, slice, message) values (7, 'info', 'appeared', 3, 'slice 3 started'), (7, 'error', 'log', 4, 'deploy failed')`);
  });

  it('lists runs with counts by status', async () => {
    const r = await call(sliceRuns.GET, 'GET', '/api/v1/slices/runs', { token: fx.tok.viewer });
    expect(r.status).toBe(200);
    expect(r.body.runs).toHaveLength(1);
    expect(r.body.runs[0]).toMatchObject({ run_id: 7, executor: 'native', counts: { COMPLETED: 2, RUNNING: 1, QUARANTINED: 1, NEW: 1 } });
  });

  it('serves the live board consistent with the orchestration table', async () => {
    const b = await call(board.GET, 'GET', '/api/v1/slices/runs/7/board', { token: fx.tok.viewer, params: { id: '7' } });
    expect(b.status).toBe(200);
    expect(b.body).toMatchObject({ runId: 7, total: 5, percentComplete: 40, counts: { COMPLETED: 2, RUNNING: 1, QUARANTINED: 1, NEW: 1 } });
    expect(b.body.inFlight).toHaveLength(1);
    expect(b.body.inFlight[0]).toMatchObject({ slice: 3, namespace: 'ILA_7_3', rowsWritten: 500 });
    expect(b.body.inFlight[0].elapsedSeconds).toBeGreaterThan(0);
    expect(b.body.recentCompletions.map((c: { slice: number }) => c.slice).sort()).toEqual([1, 2]);
    expect(b.body.failed).toEqual([expect.objectContaining({ slice: 4, status: 'QUARANTINED', attempts: 3 })]);
    expect(b.body.logTail.map((l: { message: string }) => l.message)).toEqual(['slice 3 started', 'deploy failed']);
    expect((await call(board.GET, 'GET', '/api/v1/slices/runs/99/board', { token: fx.tok.viewer, params: { id: '99' } })).status).toBe(404);
    expect((await call(board.GET, 'GET', '/api/v1/slices/runs/x/board', { token: fx.tok.viewer, params: { id: 'x' } })).status).toBe(404);
  });

  it('lists a run’s slices, filtered by status', async () => {
    const all = await call(slices.GET, 'GET', '/api/v1/slices/runs/7/slices', { token: fx.tok.viewer, params: { id: '7' } });
    expect(all.body.slices.map((s: { slice: number; status: string }) => `${s.slice}:${s.status}`)).toEqual(['1:COMPLETED', '2:COMPLETED', '3:RUNNING', '4:QUARANTINED', '5:NEW']);
    expect(all.body.slices[0].query).toContain('id % 5 = 0');
    const bad = await call(slices.GET, 'GET', '/api/v1/slices/runs/7/slices?status=failed,quarantined', { token: fx.tok.viewer, params: { id: '7' } });
    expect(bad.body.slices.map((s: { slice: number }) => s.slice)).toEqual([4]);
    const wrong = await call(slices.GET, 'GET', '/api/v1/slices/runs/7/slices?status=DONE', { token: fx.tok.viewer, params: { id: '7' } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.field).toBe('query.status');
    expect((await call(slices.GET, 'GET', '/api/v1/slices/runs/99/slices', { token: fx.tok.viewer, params: { id: '99' } })).status).toBe(404);
  });
});

describe('lake', () => {
  beforeAll(async () => {
    const { env } = serverDeps();
    const lake = openLake({ pool: fx.db.pool, warehouse: env.warehouse });
    const schema = new arrow.Schema([
      new arrow.Field('ID', new arrow.Int64(), false),
      new arrow.Field('NAME', new arrow.Utf8(), true),
      new arrow.Field('BRANCH_ID', new arrow.Utf8(), false),
    ]);
    const t = await lake.createTable('sales.orders', { schema, partitionBy: ['BRANCH_ID'], identifierColumns: ['ID'] });
    const batch = (ids: number[], branch: string) => {
      const cols = [
        arrow.vectorFromArray(ids.map(BigInt), new arrow.Int64()),
        arrow.vectorFromArray(ids.map((i) => `n${i}`), new arrow.Utf8()),
        arrow.vectorFromArray(ids.map(() => branch), new arrow.Utf8()),
      ];
      return [new arrow.RecordBatch(schema, arrow.makeData({ type: new arrow.Struct(schema.fields), length: ids.length, nullCount: 0, children: cols.map((c) => c.data[0]) }))];
    };
    await t.append((async function* () { yield* batch([1, 2, 3], 'a'); yield* batch([4, 5], 'b'); })());
    await t.deleteWhere({ partition: { BRANCH_ID: 'b' } });
  });

  it('lists tables of the warehouse', async () => {
    expect((await call(lakeTables.GET, 'GET', '/api/v1/lake/tables')).status).toBe(401);
    const r = await call(lakeTables.GET, 'GET', '/api/v1/lake/tables', { token: fx.tok.viewer });
    expect(r.status).toBe(200);
    expect(r.body.warehouse).toBe(`file://${path.join(path.resolve(fx.dataDir), 'warehouse')}`);
    expect(r.body.tables).toEqual([expect.objectContaining({ ident: 'sales.orders', namespace: 'sales', name: 'orders', snapshotCount: 2, partitionBy: ['identity(BRANCH_ID)'], error: null })]);
    expect((await call(lakeTables.GET, 'GET', '/api/v1/lake/tables?namespace=other', { token: fx.tok.viewer })).body.tables).toEqual([]);
  });

  it('describes a table: schema, partition spec, snapshots, rows per partition', async () => {
    const r = await call(lakeTable.GET, 'GET', '/api/v1/lake/tables/sales.orders', { token: fx.tok.viewer, params: { ident: 'sales.orders' } });
    expect(r.status).toBe(200);
    expect(r.body.schema.map((f: { name: string; type: string }) => `${f.name}:${f.type}`)).toEqual(['ID:long', 'NAME:string', 'BRANCH_ID:string']);
    expect(r.body.identifierFields).toEqual(['ID']);
    expect(r.body.partitionSpec).toEqual([expect.objectContaining({ name: 'BRANCH_ID', transform: 'identity' })]);
    expect(r.body.properties).not.toHaveProperty('schema.name-mapping.default');
    expect(r.body.snapshots).toHaveLength(2);
    expect(r.body.snapshots[0].current).toBe(true);
    expect(r.body.snapshots[1].operation).toBe('append');
    // Branch b's partition was deleted: only a's three rows are live.
    const rows = Object.fromEntries(r.body.rowsPerPartition.map((p: { partition: { BRANCH_ID: string }; rows: number }) => [p.partition.BRANCH_ID, p.rows]));
    expect(rows.a).toBe(3);
    expect(rows.b ?? 0).toBe(0);
    expect(r.body.currentSnapshot.summary.operation).toMatch(/delete|overwrite/);
  });

  it('unknown or malformed table names → 404', async () => {
    const missing = await call(lakeTable.GET, 'GET', '/api/v1/lake/tables/sales.nope', { token: fx.tok.viewer, params: { ident: 'sales.nope' } });
    expect(missing.status).toBe(404);
    expect(missing.body.error.message).toContain('sales.nope');
    expect((await call(lakeTable.GET, 'GET', '/api/v1/lake/tables/..', { token: fx.tok.viewer, params: { ident: '..' } })).status).toBe(404);
  });
});
