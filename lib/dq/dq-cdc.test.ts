import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { startLogicalPostgres, type LogicalPostgres } from '../testing/logical-pg';
import { closeCdcTest } from '../testing/cdc-teardown';
import { snapshotInitialLoad } from '../testing/snapshot-load';
import { openLake, type Lake } from '../lake';
import { silentLogger } from '../log';
import { parseTablesConfig } from '../config/tables-json';
import { parseRequest } from '../config/request';
import { setupBranch } from '../cdc/setup-branch';
import { runStream } from '../cdc/stream';
import { readBranchState, setBranchStatus } from '../cdc/state';
import { DqRequest } from './request';
import { runDq } from './run';
import { waitFor } from '../testing/wait-for';
import { openPostgresDqSource, type DqBranch } from './source';
import { dqBranchesOf } from './execute';

// dq over a branch streamed with `cdc: log`: a real PostgreSQL with wal_level=logical, a running
// stream (lib/cdc) applying every 2 s, and the reconciler comparing after the lake reached the
// source's WAL position.
const BRANCH = 'b0';
const tables = parseTablesConfig([{ table: 'public.items', unique_key: 'id', cdc_column: 'updated_at', category: 'masters' }]);
let server: LogicalPostgres;
let db: TestDatabase;
let lake: Lake;
let warehouse: string;
let src: pg.Client;

const branch = (): DqBranch => ({ key: BRANCH, cdc: true, open: () => openPostgresDqSource({ branch: BRANCH, connectionString: server.url }) });
const dq = (cdcWaitMs = 60_000) => runDq({ pool: db.pool, lake, tables, branches: [branch()], logger: silentLogger }, { cdcWaitMs, write: false });

function startStream() {
  const ac = new AbortController();
  const done = runStream({
    pool: db.pool, lake, branch: BRANCH, source: { connectionString: server.url }, tables, logger: silentLogger, runId: 'cdc-dq-test',
    signal: ac.signal, flushIntervalMs: 2_000, flushRows: 100_000,
  });
  return { stop: async () => { ac.abort(); return done; }, done };
}
/** The stream has checked its slot and marked the branch as streaming. */
const streaming = () => waitFor('the stream to start', async () => (await readBranchState(db.pool, BRANCH))?.status === 'streaming', 30_000);

describe('dq over a streamed branch (cdc: log)', () => {
  beforeAll(async () => {
    server = await startLogicalPostgres();
    db = await createTestDatabase();
    warehouse = path.resolve('lib/dq', `.test-warehouse-${crypto.randomBytes(4).toString('hex')}`);
    await fs.mkdir(warehouse, { recursive: true });
    const staging = await fs.mkdtemp(path.join(warehouse, 'staging-'));
    lake = openLake({ pool: db.pool, warehouse: `file://${warehouse}` });
    src = new pg.Client({ connectionString: server.url });
    await src.connect();
    await src.query(`CREATE TABLE public.items (id int PRIMARY KEY, name text, qty int, updated_at timestamptz)`);
    await src.query(`CREATE TABLE public.unpublished (id int)`);
    await src.query(`INSERT INTO public.items SELECT g, 'item ' || g, g % 10, '2024-01-01'::timestamptz + g * interval '1 minute' FROM generate_series(1, 200) g`);
    await setupBranch({
      pool: db.pool, lake, branch: BRANCH, namespace: 'etl', source: { connectionString: server.url }, tables, logger: silentLogger,
      initialLoad: snapshotInitialLoad({ pool: db.pool, lake, url: server.url, branch: BRANCH, tables, staging: () => staging }),
    });
  }, 180_000);
  afterAll(() => closeCdcTest({ src, server, db, dir: warehouse }), 60_000);

  it('cdcWait is validated as a duration naming its field', () => {
    expect(parseRequest(DqRequest, { cdcWait: '2m' }, 'params').cdcWait).toBe(120_000);
    expect(parseRequest(DqRequest, { cdcWait: 90 }, 'params').cdcWait).toBe(90_000);
    expect(() => parseRequest(DqRequest, { cdcWait: 'soon' }, 'params')).toThrow(/params\.cdcWait/);
    expect(() => parseRequest(DqRequest, { cdcWait: '2h' }, 'flags')).toThrow(/--cdc-wait/);
  });

  it('a PostgreSQL branch connection with cdc = "log" is waited for; others are not', () => {
    const [log, wm, ora] = dqBranchesOf([
      { key: 'a', name: 'a', kind: 'postgres', params: { host: 'h', cdc: 'log' }, secrets: {} },
      { key: 'b', name: 'b', kind: 'postgres', params: { host: 'h', cdc: 'watermark' }, secrets: {} },
      { key: 'c', name: 'c', kind: 'oracle', params: { host: 'h', service: 's' }, secrets: {} },
    ]);
    expect([log.cdc, wm.cdc, ora.cdc]).toEqual([true, false, false]);
  });

  it('a write just before dq is counted equal after the wait; an idle source is reached too', async () => {
    const s = startStream();
    try {
      await streaming();
      // the stream flushes every 2 s: compared at once, the lake would not hold these yet
      await src.query(`INSERT INTO public.items VALUES (5000, 'just before dq', 1, now())`);
      await src.query(`UPDATE public.items SET name = 'changed just before dq' WHERE id = 1`);
      await src.query(`DELETE FROM public.items WHERE id = 2`);
      const r = await dq();
      const u = r.results[0];
      expect(u.errorDetails).toBeNull();
      expect(u.status).toBe('OK');
      expect(u.oracleRowCount).toBe(200);
      expect(u.icebergRowCount).toBe(200);
      expect(u.windowNote).toMatch(/cdc: compared after the stream applied the source's WAL position [0-9A-F]+\/[0-9A-F]+ \(lake at [0-9A-F]+\/[0-9A-F]+\)/);
      // WAL the stream has nothing to apply for (a table outside the publication): its idle keepalives carry it past the point
      await src.query(`INSERT INTO public.unpublished SELECT generate_series(1, 1000)`);
      const idle = await dq();
      expect(idle.results[0].errorDetails).toBeNull();
      expect(idle.results[0].status).toBe('OK');
      expect(idle.results[0].windowNote).toContain('cdc: compared after the stream applied');
    } finally { await s.stop(); }
  }, 180_000);

  it('a stopped stream is not waited for: the result names both positions and says the stream is stopped', async () => {
    expect((await readBranchState(db.pool, BRANCH))?.status).toBe('stopped');
    await src.query(`INSERT INTO public.items VALUES (5001, 'while stopped', 1, now())`);
    const target = (await src.query(`SELECT pg_current_wal_lsn()::text AS l`)).rows[0].l as string;
    const lakeAt = (await readBranchState(db.pool, BRANCH))!.appliedLsn!;
    const u = (await dq()).results[0];
    expect(u.status).toBe('MISMATCH');
    expect(u.hashOnlyInOracle).toBe(1);
    expect(u.errorDetails).toContain(`has not reached the source's WAL position ${target} (lake at ${lakeAt}): the stream is stopped`);
    expect(u.errorDetails).toContain('tributary cdc start --branch b0');
  }, 120_000);

  it('a stream recorded as streaming whose worker is gone: after the wait, the note says no process reads the slot', async () => {
    // what a kill -9 of the stream's worker leaves: status streaming, the slot not in use
    await setBranchStatus(db.pool, BRANCH, 'streaming', { owner: 'gone:1' });
    const u = (await dq(1_000)).results[0];
    expect(u.status).toBe('MISMATCH');
    expect(u.errorDetails).toMatch(/has not reached the source's WAL position .* within 1 s; no process reads slot tributary_b0/);
    // started again, the stream catches up and dq agrees
    await setBranchStatus(db.pool, BRANCH, 'stopped');
    const s = startStream();
    try {
      await streaming();
      const r = (await dq()).results[0];
      expect(r.errorDetails).toBeNull();
      expect(r.status).toBe('OK');
      expect(r.oracleRowCount).toBe(201);
    } finally { await s.stop(); }
  }, 180_000);
});
