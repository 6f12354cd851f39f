// GET /api/v1/cdc and POST /api/v1/cdc/:branch/start|stop against a real migrated Postgres and a
// real source with wal_level=logical holding the branch's slot: the live figures read from both,
// viewers read but may not act, bodies validated naming the field, start enqueues one cdc.stream
// run (a second is refused), stop keeps the slot and cancels the run.
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startLogicalPostgres, type LogicalPostgres } from '@/lib/testing/logical-pg';
import { createConnection } from '@/lib/connections';
import { recordSetup } from '@/lib/cdc/state';
import { useRouteServer } from '../test-server';
import { callRoute } from '../test-call';
import * as list from './route';
import * as start from './[branch]/start/route';
import * as stop from './[branch]/stop/route';

let source: LogicalPostgres;
const fx = useRouteServer({
  name: 'cdc-api',
  env: (dir) => ({ TRIBUTARY_TABLES_FILE: path.join(dir, 'tables.json'), TRIBUTARY_CDC_LAG_ALERT_BYTES: '10GB' }),
  prepare: async ({ dataDir }) => {
    source = await startLogicalPostgres();
    fs.writeFileSync(path.join(dataDir, 'tables.json'), JSON.stringify([{ table: 'public.items', unique_key: 'id' }]));
  },
  seed: async ({ db, secret, dataDir }) => {
    const keys = { secret, dataDir };
    await createConnection({ pool: db.pool, keys }, { name: 'live', kind: 'postgres', isBranch: true, branchKey: 'live', params: { cdc: 'log' }, secrets: { url: source.url } });
    await createConnection({ pool: db.pool, keys }, { name: 'later', kind: 'postgres', isBranch: true, branchKey: 'later', params: { cdc: 'log' }, secrets: { url: source.url } });
    const c = new pg.Client({ connectionString: source.url });
    await c.connect();
    try {
      const lsn = (await c.query(`SELECT lsn::text AS l FROM pg_create_logical_replication_slot('tributary_live', 'pgoutput')`)).rows[0].l;
      await recordSetup(db.pool, { branch: 'live', namespace: 'etl', slot: 'tributary_live', publication: 'tributary_live', startLsn: lsn, tables: ['items'] });
      // WAL after the slot's position, not acknowledged: the lag
      await c.query(`CREATE TABLE public.items AS SELECT g AS id, repeat('x', 100) AS pad FROM generate_series(1, 2000) g`);
    } finally { await c.end(); }
  },
});
afterAll(async () => { await source?.stop(); }, 60_000);

const get = (token: string) => callRoute(list.GET, 'GET', '/api/v1/cdc', { token });
const post = (route: typeof start | typeof stop, action: string, token: string, branch: string, body?: unknown) =>
  callRoute(route.POST, 'POST', `/api/v1/cdc/${branch}/${action}`, { token, params: { branch }, body });

describe('GET /api/v1/cdc', () => {
  it('shows each set-up branch live: state, lag in bytes and seconds, rows per second, last commit, retained WAL', async () => {
    const r = await get(fx.tok.viewer);
    expect(r.status).toBe(200);
    expect(r.body.notSetUp).toEqual(['later']);
    expect(r.body.lagAlertBytes).toBe(10 * 1024 ** 3);
    expect(r.body.branches).toHaveLength(1);
    const b = r.body.branches[0];
    expect(b).toMatchObject({ branch: 'live', status: 'ready', rowsApplied: 0, rowsPerSecond: 0, slotExists: true, lagAlerting: false, run: null, sourceCommitAt: null });
    expect(b.lagBytes).toBeGreaterThan(100_000);
    expect(b.retainedWalBytes).toBeGreaterThanOrEqual(b.lagBytes);
    expect(b.lagSeconds).toBeGreaterThanOrEqual(0); // since the setup's snapshot, the last moment the lake was complete
    expect(Date.parse(b.lastCommitAt)).toBeLessThanOrEqual(Date.now());
  });
  it('refuses a request without credentials', async () => {
    expect((await callRoute(list.GET, 'GET', '/api/v1/cdc')).status).toBe(401);
  });
});

describe('POST /api/v1/cdc/:branch/start|stop', () => {
  it('a viewer may not start or stop a stream', async () => {
    expect((await post(start, 'start', fx.tok.viewer, 'live')).status).toBe(403);
    expect((await post(stop, 'stop', fx.tok.viewer, 'live')).status).toBe(403);
    expect((await fx.db.pool.query(`SELECT count(*)::int AS n FROM job_runs WHERE kind = 'cdc.stream'`)).rows[0].n).toBe(0);
  });
  it('validates the body naming the field, and the branch', async () => {
    const bad = await post(start, 'start', fx.tok.operator, 'live', { flushRows: 'many' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe('flushRows');
    const unknown = await post(start, 'start', fx.tok.operator, 'live', { branch: 'other' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toMatch(/branch/);
    expect((await post(start, 'start', fx.tok.operator, 'later')).status).toBe(404); // not set up
    expect((await post(start, 'start', fx.tok.operator, 'no such')).status).toBe(404);
  });
  it('start enqueues one cdc.stream run, a second is refused; stop keeps the slot and cancels the run', async () => {
    const r = await post(start, 'start', fx.tok.operator, 'live', { flushInterval: '2s', flushRows: 500 });
    expect(r.status).toBe(202);
    const run = (await fx.db.pool.query(`SELECT params, status, created_by FROM job_runs WHERE id = $1`, [r.body.id])).rows[0];
    expect(run).toMatchObject({ status: 'queued', created_by: 'token:olga/t', params: { branch: 'live', flushInterval: '2000ms', flushRows: 500 } });
    expect((await get(fx.tok.viewer)).body.branches[0].run).toEqual({ id: r.body.id, status: 'queued' });
    const again = await post(start, 'start', fx.tok.operator, 'live');
    expect(again.status).toBe(409);
    expect(again.body.error.message).toMatch(/one stream per branch/);

    const s = await post(stop, 'stop', fx.tok.operator, 'live');
    expect(s.status).toBe(200);
    expect(s.body).toEqual({ branch: 'live', status: 'stopped', slot: 'tributary_live', cancelledRuns: [r.body.id] });
    expect((await fx.db.pool.query(`SELECT status FROM job_runs WHERE id = $1`, [r.body.id])).rows[0].status).toBe('cancelled');
    const after = (await get(fx.tok.viewer)).body.branches[0];
    expect(after).toMatchObject({ status: 'stopped', slotExists: true, run: null });
    const audit = (await fx.db.pool.query(`SELECT actor FROM audit_events WHERE action = 'cdc.stop'`)).rows;
    expect(audit).toEqual([{ actor: 'token:olga/t' }]);
  });
});
