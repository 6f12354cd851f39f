// `kill -9` of `cdc setup` while its initial load reads in the slot's exported snapshot, then the
// re-run: the exported snapshot died with the killed session, so the branch must not stream from
// the half-loaded lake; `cdc setup` again re-snapshots and replaces the branch's rows, and with a
// writer going on throughout, the lake equals the source (read back by chdb): nothing lost,
// nothing doubled.
import { spawn } from 'node:child_process';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDatabase } from '../testing/pg';
import type { LogicalPostgres } from '../testing/logical-pg';
import { closeCdcTest } from '../testing/cdc-teardown';
import { openCdcTest } from '../testing/cdc-fixture';
import { snapshotInitialLoad } from '../testing/snapshot-load';
import { waitFor } from '../testing/wait-for';
import type { Lake } from '../lake';
import { silentLogger } from '../log';
import { parseTablesConfig } from '../config/tables-json';
import { chdbRows, loadChdb, norm } from '../etl/test-lake-readers';
import { setupBranch } from './setup-branch';
import { runStream } from './stream';
import { readBranchState } from './state';

const BRANCH = 'k0';
const RAW_TABLES = [
  { table: 'public.items', unique_key: 'id', cdc_column: 'updated_at', category: 'masters' },
  { table: 'public.orders', unique_key: 'id', cdc_column: 'updated_at', category: 'masters' },
];
const NAMES = ['items', 'orders'];
const tables = parseTablesConfig(RAW_TABLES);
let server: LogicalPostgres;
let db: TestDatabase;
let lake: Lake;
let warehouse: string;
let staging: string;
let src: pg.Client;

const setupInProcess = () => setupBranch({
  pool: db.pool, lake, branch: BRANCH, namespace: 'etl', source: { connectionString: server.url }, tables, logger: silentLogger,
  initialLoad: snapshotInitialLoad({ pool: db.pool, lake, url: server.url, branch: BRANCH, tables, staging: () => staging }),
});

async function sourceRows(t: string): Promise<string[]> {
  const r = await src.query({ text: `SELECT id::text, name, qty::text FROM public.${t}`, rowMode: 'array' });
  return (r.rows as unknown[][]).map((x) => JSON.stringify(x.map(norm))).sort();
}
async function lakeRows(t: string): Promise<string[]> {
  const tbl = await lake.loadTable(`etl.${t}`);
  await tbl.refresh();
  return chdbRows(tbl, (from) => `SELECT toString(id) AS id, toString(name) AS name, toString(qty) AS qty FROM ${from} WHERE BRANCH_ID = '${BRANCH}'`)
    .map((r) => JSON.stringify([r.id, r.name, r.qty].map(norm))).sort();
}
async function lakeEqualsSource(): Promise<boolean> {
  for (const t of NAMES) if (JSON.stringify(await lakeRows(t)) !== JSON.stringify(await sourceRows(t))) return false;
  return true;
}

/** Inserts, updates and deletes on both tables, `rounds` transactions each. */
async function write(rounds: number, seed: number): Promise<void> {
  const c = new pg.Client({ connectionString: server.url });
  await c.connect();
  try {
    for (let r = 0; r < rounds; r++) {
      for (const t of NAMES) {
        const base = 100_000 + seed * 10_000 + r * 10;
        await c.query('BEGIN');
        await c.query(`INSERT INTO public.${t} SELECT g, 'new ' || g, g % 7, now() FROM generate_series($1::int, $1::int + 3) g`, [base]);
        await c.query(`UPDATE public.${t} SET qty = qty + 1, name = name || '+' WHERE id % 11 = $1`, [r % 11]);
        await c.query(`DELETE FROM public.${t} WHERE id IN (SELECT id FROM public.${t} WHERE id % 19 = $1 LIMIT 2)`, [r % 19]);
        await c.query('COMMIT');
      }
    }
  } finally { await c.end(); }
}

describe('cdc setup killed during its initial snapshot', () => {
  beforeAll(async () => {
    await loadChdb();
    ({ server, src, db, warehouse, staging, lake } = await openCdcTest('lib/cdc'));
    for (const t of NAMES) {
      await src.query(`CREATE TABLE public.${t} (id int PRIMARY KEY, name text, qty int, updated_at timestamptz)`);
      await src.query(`INSERT INTO public.${t} SELECT g, '${t} ' || g, g % 10, now() FROM generate_series(1, 400) g`);
    }
  }, 180_000);
  afterAll(() => closeCdcTest({ src, server, db, dir: warehouse }), 60_000);

  it('the branch refuses to stream until setup runs again; the re-run replaces the partial load and the stream goes on exactly', async () => {
    // a branch set up once, then changed at the source while nothing streams
    await setupInProcess();
    await write(5, 1);
    const old = (await readBranchState(db.pool, BRANCH))!;
    expect(old.status).toBe('ready');

    // setup again in a child process, killed after the first table's load, before the second's
    const cfg = JSON.stringify({ db: db.url, warehouse: `file://${warehouse}`, source: server.url, branch: BRANCH, tables: RAW_TABLES, staging });
    const child = spawn(process.execPath, ['--import', 'tsx', 'lib/testing/cdc-setup-child.ts', cfg], { stdio: ['pipe', 'pipe', 'pipe'] });
    const err: string[] = [];
    child.stderr!.on('data', (d: Buffer) => err.push(d.toString()));
    const writer = write(20, 2); // a concurrent writer, before, during and after the kill
    await new Promise<void>((res, rej) => {
      child.stdout!.on('data', (d: Buffer) => { if (d.toString().includes('LOADED items')) res(); });
      child.once('exit', (code) => rej(new Error(`the setup child exited (${code}) before loading a table: ${err.join('')}`)));
    });
    const exited = new Promise((res) => child.once('exit', res));
    child.kill('SIGKILL');
    await exited;
    await writer;

    // the half-loaded branch: not set up, naming the re-run; a stream refuses it
    const st = (await readBranchState(db.pool, BRANCH))!;
    expect(st.status).toBe('failed');
    expect(st.startLsn).toBeNull();
    expect(st.error).toContain(`tributary cdc setup --branch ${BRANCH}`);
    const refused = await runStream({
      pool: db.pool, lake, branch: BRANCH, source: { connectionString: server.url }, tables, logger: silentLogger, runId: 'cdc-test', signal: new AbortController().signal,
    }).catch((e) => e);
    expect(String(refused?.message)).toContain('initial snapshot of branch k0 has not finished');
    expect(await lakeEqualsSource()).toBe(false); // what the killed setup left is not the source

    // the re-run: a new slot and snapshot, both tables' branch rows replaced
    const writer2 = write(10, 3);
    const r = await setupInProcess();
    expect((await readBranchState(db.pool, BRANCH))?.startLsn).toBe(r.startLsn);
    const ac = new AbortController();
    const stream = runStream({
      pool: db.pool, lake, branch: BRANCH, source: { connectionString: server.url }, tables, logger: silentLogger, runId: 'cdc-test', signal: ac.signal, flushIntervalMs: 250, flushRows: 500,
    });
    await writer2;
    await write(5, 4);
    try {
      await waitFor('the lake to equal the source after the re-run', () => lakeEqualsSource(), 120_000, 500);
    } finally { ac.abort(); await stream; }
    for (const t of NAMES) expect((await lakeRows(t)).length).toBe((await sourceRows(t)).length);
  }, 300_000);
});
