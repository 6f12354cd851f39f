import { spawn, type ChildProcess } from 'node:child_process';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDatabase } from '../testing/pg';
import type { LogicalPostgres } from '../testing/logical-pg';
import { closeCdcTest } from '../testing/cdc-teardown';
import { openCdcTest } from '../testing/cdc-fixture';
import { snapshotInitialLoad } from '../testing/snapshot-load';
import { waitFor } from '../testing/wait-for';
import type { Lake, LakeTable } from '../lake';
import { silentLogger } from '../log';
import { parseTablesConfig } from '../config/tables-json';
import { chdbRows, icebirdRows, loadChdb, norm } from '../etl/test-lake-readers';
import { setupBranch, SourceNotReady } from './setup-branch';
import { LSN_PROPERTY, runStream, type StreamOptions } from './stream';
import { readBranchState } from './state';
import { parseLsn } from './lsn';

// A real PostgreSQL with wal_level=logical as the branch, Tributary's test database, and a lake
// read back by ClickHouse (chdb) and icebird.
const BRANCH = 'b0';
const RAW_TABLES = [{ table: 'public.items', unique_key: 'id', cdc_column: 'updated_at', category: 'masters' }];
const tables = parseTablesConfig(RAW_TABLES);
let server: LogicalPostgres;
let db: TestDatabase;
let lake: Lake;
let warehouse: string;
let src: pg.Client;
let staging: string;

async function initialLoad(snapshot: string, before?: () => Promise<void>): Promise<void> {
  // a change committed after the slot's consistent point: the snapshot must not see it, the stream must
  await before?.();
  await snapshotInitialLoad({ pool: db.pool, lake, url: server.url, branch: BRANCH, tables, staging: () => staging })(snapshot);
}

function setup(before?: () => Promise<void>) {
  return setupBranch({ pool: db.pool, lake, branch: BRANCH, namespace: 'etl', source: { connectionString: server.url }, tables, logger: silentLogger, initialLoad: (s) => initialLoad(s, before) });
}

function startStream(o: Partial<StreamOptions> = {}) {
  const ac = new AbortController();
  const done = runStream({
    pool: db.pool, lake, branch: BRANCH, source: { connectionString: server.url }, tables, logger: silentLogger, runId: 'cdc-test',
    signal: ac.signal, flushIntervalMs: 250, flushRows: 500, ...o,
  });
  return { stop: async () => { ac.abort(); return done; }, done };
}

const COLS = ['id', 'name', 'qty', 'updated_at'];
async function sourceRows(cols = COLS): Promise<string[]> {
  const r = await src.query({ text: `SELECT ${cols.map((c) => (c === 'updated_at' ? `(updated_at AT TIME ZONE 'UTC')::text` : `${c}::text`)).join(', ')} FROM public.items`, rowMode: 'array' });
  return (r.rows as unknown[][]).map((x) => JSON.stringify(x.map(norm))).sort();
}
async function items(): Promise<LakeTable> { const t = await lake.loadTable('etl.items'); await t.refresh(); return t; }
function chdbItems(t: LakeTable, cols = COLS): string[] {
  return chdbRows(t, (from) => `SELECT ${cols.map((c) => `toString(${c}) AS ${c}`).join(', ')} FROM ${from} WHERE BRANCH_ID = '${BRANCH}'`)
    .map((r) => JSON.stringify(cols.map((c) => norm(r[c])))).sort();
}
/** icebird hands timestamps as JS Dates (milliseconds): it checks the other columns, chdb the microseconds. */
async function icebirdItems(t: LakeTable, all = COLS): Promise<string[]> {
  const cols = all.filter((c) => c !== 'updated_at');
  const rows = await icebirdRows(t);
  return rows.filter((r) => r.BRANCH_ID === BRANCH).map((r) => JSON.stringify(cols.map((c) => {
    const v = r[c];
    return norm(typeof v === 'bigint' ? String(v) : v);
  }))).sort();
}
async function lakeEqualsSource(cols = COLS): Promise<boolean> {
  const want = await sourceRows(cols);
  const t = await items();
  return JSON.stringify(chdbItems(t, cols)) === JSON.stringify(want);
}

/** A writer: inserts, updates that leave updated_at alone, deletes, a key change and a rolled-back transaction. */
async function write(rounds: number, seed: number): Promise<void> {
  const c = new pg.Client({ connectionString: server.url });
  await c.connect();
  try {
    for (let r = 0; r < rounds; r++) {
      const base = 100_000 + seed * 10_000 + r * 10;
      await c.query('BEGIN');
      await c.query(`INSERT INTO public.items SELECT g, 'new ' || g, g % 7, now() FROM generate_series($1::int, $1::int + 5) g`, [base]);
      await c.query(`UPDATE public.items SET qty = qty + 1, name = name || '+' WHERE id % 13 = $1`, [r % 13]); // watermark untouched
      await c.query('COMMIT');
      await c.query(`DELETE FROM public.items WHERE id IN (SELECT id FROM public.items WHERE id % 17 = $1 LIMIT 3)`, [r % 17]);
      await c.query('BEGIN');
      await c.query(`INSERT INTO public.items VALUES ($1, 'rolled back', 1, now())`, [base + 9]);
      await c.query(`UPDATE public.items SET name = 'rolled back' WHERE id % 5 = 0`);
      await c.query('ROLLBACK');
      await c.query(`UPDATE public.items SET id = $2 WHERE id = $1`, [base + 1, base + 8]); // a key change
    }
  } finally { await c.end(); }
}

describe('cdc: streaming a PostgreSQL branch into the lake', () => {
  beforeAll(async () => {
    await loadChdb();
    ({ server, src, db, warehouse, staging, lake } = await openCdcTest('lib/cdc'));
    await src.query(`CREATE TABLE public.items (id int PRIMARY KEY, name text, qty int, updated_at timestamptz)`);
    await src.query(`INSERT INTO public.items SELECT g, 'item ' || g, g % 10, '2024-01-01'::timestamptz + g * interval '1 minute' FROM generate_series(1, 300) g`);
  }, 180_000);
  afterAll(() => closeCdcTest({ src, server, db, dir: warehouse }), 60_000);

  it('setup names what the source lacks, with the SQL to run', async () => {
    await src.query(`CREATE TABLE public.nokey (a int, b text)`);
    await src.query(`CREATE ROLE plain LOGIN PASSWORD 'plain-pw'`);
    const bad = parseTablesConfig([{ table: 'public.nokey', unique_key: 'a', category: 'masters' }]);
    const url = server.url.replace('cdc_admin:cdc-pw', 'plain:plain-pw');
    const e = await setupBranch({ pool: db.pool, lake, branch: 'bx', namespace: 'etl', source: { connectionString: url }, tables: bad, logger: silentLogger, initialLoad: async () => {} }).catch((x) => x);
    expect(e).toBeInstanceOf(SourceNotReady);
    expect(e.message).toContain('ALTER TABLE "public"."nokey" REPLICA IDENTITY FULL;');
    expect(e.message).toContain('ALTER ROLE "plain" WITH REPLICATION;');
    expect(e.message).toContain('GRANT SELECT ON "public"."nokey" TO "plain";');
  });

  it('the initial load reads in the slot\'s snapshot, and the stream applies inserts, updates, deletes exactly (chdb and icebird agree)', async () => {
    const r = await setup(async () => {
      await src.query(`INSERT INTO public.items VALUES (5000, 'after the snapshot', 1, now())`);
      await src.query(`UPDATE public.items SET name = 'changed after the snapshot' WHERE id = 1`);
      await src.query(`DELETE FROM public.items WHERE id = 2`);
    });
    expect(r.slot).toBe('tributary_b0');
    // the snapshot is the slot's: the three changes above are not in the initial load
    const t0 = await items();
    const initial = chdbItems(t0, ['id', 'name']);
    expect(initial).toContain(JSON.stringify(['1', 'item 1']));
    expect(initial).toContain(JSON.stringify(['2', 'item 2']));
    expect(initial).not.toContain(JSON.stringify(['5000', 'after the snapshot']));
    expect((await readBranchState(db.pool, BRANCH))?.startLsn).toBe(r.startLsn);

    const s = startStream();
    await write(6, 1);
    await waitFor('the lake to equal the source', () => lakeEqualsSource(), 90_000, 500);
    const t = await items();
    expect(await icebirdItems(t)).toEqual(await sourceRows(COLS.filter((c) => c !== 'updated_at')));
    // the LSN is in the commit's snapshot summary and in the control state, and the slot is acknowledged up to it
    const lsn = (t.snapshots().at(-1)!.summary as Record<string, string>)[LSN_PROPERTY(BRANCH)];
    expect(lsn).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
    await waitFor('the slot to be acknowledged', async () => {
      const st = await readBranchState(db.pool, BRANCH);
      const slot = (await src.query(`SELECT confirmed_flush_lsn::text AS c FROM pg_replication_slots WHERE slot_name = 'tributary_b0'`)).rows[0].c as string;
      return st?.appliedLsn && parseLsn(slot) >= parseLsn(st.appliedLsn) && parseLsn(st.appliedLsn) >= parseLsn(lsn);
    }, 30_000);
    // the live view's inputs: the source commit time of the last applied transaction (lag in seconds), the rate sample of this run
    const live = (await db.pool.query(`SELECT source_commit_at, rate_rows, rate_at, rows_applied FROM etl_meta.cdc_state WHERE branch_id = $1`, [BRANCH])).rows[0];
    expect(live.source_commit_at.getTime()).toBeLessThanOrEqual(Date.now());
    expect(live.source_commit_at.getTime()).toBeGreaterThan(Date.now() - 180_000);
    expect(Number(live.rows_applied)).toBeGreaterThan(0);
    expect(live.rate_at).not.toBeNull();
    const summary = await s.stop();
    expect(summary.rows).toBeGreaterThan(0);
    expect((await readBranchState(db.pool, BRANCH))?.status).toBe('stopped');
  }, 180_000);

  it('kill -9 of the stream mid-flush, then a restart: nothing lost, nothing applied twice', async () => {
    const cfg = JSON.stringify({ db: db.url, warehouse: `file://${warehouse}`, source: server.url, branch: BRANCH, tables: RAW_TABLES, flushIntervalMs: 150, flushRows: 40 });
    const spawnChild = () => spawn(process.execPath, ['--import', 'tsx', 'lib/testing/cdc-stream-child.ts', cfg], { stdio: ['ignore', 'pipe', 'pipe'] });
    const flushedOnce = (p: ChildProcess) => new Promise<void>((res) => p.stdout!.on('data', (d: Buffer) => { if (d.toString().includes('FLUSHED')) res(); }));
    const writer = write(30, 2);
    for (let k = 0; k < 2; k++) {
      const p = spawnChild();
      await flushedOnce(p);
      const exited = new Promise((res) => p.once('exit', res));
      p.kill('SIGKILL');
      await exited;
    }
    await writer;
    const last = spawnChild();
    const lastErr: string[] = [];
    last.stderr!.on('data', (d: Buffer) => lastErr.push(d.toString()));
    try {
      await waitFor('the lake to equal the source after the restarts', () => lakeEqualsSource(), 120_000, 500);
    } finally {
      const exited = new Promise((res) => last.once('exit', res));
      last.kill('SIGTERM');
      await exited;
    }
    expect(lastErr.join('')).toBe('');
    // every CDC commit of the branch moved the table forward: no transaction was applied at or below an LSN already in the lake
    const t = await items();
    const lsns = [...t.snapshots()].sort((a, b) => a['sequence-number'] - b['sequence-number'])
      .map((x) => (x.summary as Record<string, string>)[LSN_PROPERTY(BRANCH)]).filter(Boolean).map(parseLsn);
    for (let i = 1; i < lsns.length; i++) expect(lsns[i] > lsns[i - 1]).toBe(true);
    expect(await icebirdItems(t)).toEqual(await sourceRows(COLS.filter((c) => c !== 'updated_at')));
  }, 240_000);

  it('a column added mid-stream reaches the lake through the schema union; a second stream of the branch is refused', async () => {
    const s = startStream({ owner: 'worker-a' });
    await waitFor('the stream to take its slot', async () => (await src.query(`SELECT active FROM pg_replication_slots WHERE slot_name = 'tributary_b0'`)).rows[0]?.active
      && (await readBranchState(db.pool, BRANCH))?.owner === 'worker-a', 30_000);
    // the second stream goes as far as START_REPLICATION, which refuses it: it writes no state
    const second = await startStream({ owner: 'worker-b' }).done.catch((x) => x);
    expect(String(second.message)).toContain('streaming already (slot tributary_b0 is in use by worker-a)');
    expect(await readBranchState(db.pool, BRANCH)).toMatchObject({ status: 'streaming', owner: 'worker-a', error: null });
    await src.query(`ALTER TABLE public.items ADD COLUMN note varchar(40)`);
    await src.query(`INSERT INTO public.items VALUES (7000, 'with a note', 3, now(), 'hello')`);
    await src.query(`UPDATE public.items SET note = 'noted' WHERE id = 3`);
    const cols = [...COLS, 'note'];
    await waitFor('the new column in the lake', async () => (await items()).arrowSchema().fields.some((f) => f.name === 'note') && lakeEqualsSource(cols), 60_000, 500);
    expect(await icebirdItems(await items(), cols)).toEqual(await sourceRows(cols.filter((c) => c !== 'updated_at')));
    await s.stop();
  }, 120_000);

  it('a slot dropped by the source\'s admin fails the stream naming the recovery; setup again re-snapshots', async () => {
    await src.query(`SELECT pg_drop_replication_slot('tributary_b0')`);
    await src.query(`INSERT INTO public.items VALUES (8000, 'while the slot was gone', 1, now(), NULL)`);
    const e = await startStream().done.catch((x) => x);
    expect(String(e.message)).toContain('tributary cdc setup --branch b0');
    const st = await readBranchState(db.pool, BRANCH);
    expect(st?.status).toBe('failed');
    expect(st?.error).toContain('re-snapshots');
    await setup();
    const cols = [...COLS, 'note'];
    expect(await lakeEqualsSource(cols)).toBe(true);
    const s = startStream();
    await src.query(`DELETE FROM public.items WHERE id = 8000`);
    await waitFor('the stream to go on after the recovery', () => lakeEqualsSource(cols), 60_000, 500);
    await s.stop();
  }, 180_000);

  it('two streams of the branch starting at once: the slot picks one, and only that one is the owner in cdc_state', async () => {
    const a = startStream({ owner: 'race-a' }); const b = startStream({ owner: 'race-b' });
    const lost = await Promise.race([a.done.then(() => null, () => 'race-a'), b.done.then(() => null, () => 'race-b')]);
    expect(lost).not.toBeNull();
    const [loser, winner] = lost === 'race-a' ? [a, b] : [b, a];
    expect(String((await loser.done.catch((x) => x)).message)).toContain('streaming already');
    const owner = lost === 'race-a' ? 'race-b' : 'race-a';
    await waitFor('the winner to be the owner', async () => (await readBranchState(db.pool, BRANCH))?.owner === owner, 30_000);
    await src.query(`UPDATE public.items SET qty = qty + 1 WHERE id = 3`);
    await waitFor('the winner to stream', () => lakeEqualsSource([...COLS, 'note']), 60_000, 500);
    expect(await readBranchState(db.pool, BRANCH)).toMatchObject({ status: 'streaming', owner, error: null });
    await winner.stop();
  }, 120_000);
});
