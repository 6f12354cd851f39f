import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createScratchDatabase, createTestDatabase, type TestDatabase } from '../testing/pg';
import { FIXTURE_TABLES, seedBranch } from '../testing/branch-fixtures';
import { expectLostUnitsRanElsewhere, unitOnAnotherWorker, runEnded, waitForWorkers, workerProcesses } from '../testing/worker-processes';
import { parseEnv } from '../config/env';
import { createConnection } from '../connections';
import { createJobRegistry, enqueueJob, listRunUnits } from '../jobs';
import { openLake } from '../lake';
import { silentLogger } from '../log';
import { dataDirPaths } from '../config/data-path';
import { parseTablesConfig } from '../config/tables-json';
import { executeEtl } from './execute';
import { etlJobs } from './jobs';
import { EtlRequest } from './request';
import { icebirdRows, norm } from './test-lake-readers';

// Real worker processes (`node bin/tributary.mjs worker`, default TRIBUTARY_FANOUT=auto) share ETL runs over
// seven real Postgres branch databases; the lake is compared with the sources and with a run of the
// same data by one process (no fan-out).
const N = 7;
const CUSTOMERS = 300;
const ORDERS = 3000;
let db: TestDatabase;
let dataDir: string;
const scratch: { url: string; drop(): Promise<void> }[] = [];
const jobs = createJobRegistry(etlJobs);
const tables = parseTablesConfig(FIXTURE_TABLES);

function envOf(): ReturnType<typeof parseEnv> {
  return parseEnv({ TRIBUTARY_DATA_DIR: dataDir } as unknown as NodeJS.ProcessEnv);
}

const procs = workerProcesses({ databaseUrl: () => db.url, dataDir: () => dataDir });
const startWorker = procs.start;
const stopAll = procs.stopAll;

const request = (namespace: string) => ({ mode: 'INITIAL', namespace, tablesJson: FIXTURE_TABLES, fetchBatchSize: 500, retries: 0 });

/** A lake table's rows without the load-time columns, as sorted JSON (equal lakes give equal lists). */
async function lakeSet(ns: string, table: string): Promise<string[]> {
  const lake = openLake({ pool: db.pool, warehouse: envOf().warehouse });
  const rows = await icebirdRows(await lake.loadTable(`${ns}.${table}`));
  return rows.map((r) => JSON.stringify(Object.keys(r).filter((k) => k !== 'insert_at' && k !== 'Recorded_updated_at').sort().map((k) => [k, norm(r[k])]))).sort();
}

/** Rows each lake table must hold over all branches (the INITIAL's range). */
async function sourceCounts(): Promise<Record<string, number>> {
  const q: Record<string, string> = {
    customers: 'select count(*) from oasis.customers', products: 'select count(*) from oasis.products',
    orders: `select count(*) from oasis.orders where order_date >= '2024-01-01'`, appointments: 'select count(*) from oasis.appointments where julian_date >= 2460311',
    order_lines: `select count(*) from oasis.order_lines t join oasis.orders h on h.order_id = t.order_id where h.order_date >= '2024-01-01'`,
    orders_enriched: 'select count(*) from oasis.orders o join oasis.customers c on c.customer_id = o.customer_id',
  };
  const out: Record<string, number> = {};
  for (const s of scratch) {
    const c = new pg.Client({ connectionString: s.url });
    await c.connect();
    try { for (const [t, sql] of Object.entries(q)) out[t] = (out[t] ?? 0) + Number((await c.query(sql)).rows[0].count); } finally { await c.end(); }
  }
  return out;
}

/** Every lake table holds exactly the source's rows, each key once, and equals the single-process lake. */
async function expectLakeRight(ns: string): Promise<void> {
  const want = await sourceCounts();
  for (const def of tables) {
    const got = await lakeSet(ns, def.lakeName);
    expect(got.length, `${ns}.${def.lakeName} rows`).toBe(want[def.lakeName]);
    const keys = new Set(got.map((j) => JSON.stringify((JSON.parse(j) as [string, unknown][]).filter(([k]) => k === 'BRANCH_ID' || def.uniqueKey.includes(k.toUpperCase())))));
    expect(keys.size, `${ns}.${def.lakeName} distinct keys`).toBe(got.length);
    expect(got, `${ns}.${def.lakeName} equals the single-process lake`).toEqual(await lakeSet('one', def.lakeName));
  }
}

beforeAll(async () => {
  db = await createTestDatabase();
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'etl-fanout-'));
  for (let i = 0; i < N; i++) {
    const s = await createScratchDatabase('fan');
    scratch.push(s);
    await seedBranch(s.url, { index: i, customers: CUSTOMERS, orders: ORDERS });
    await createConnection({ pool: db.pool, keys: { dataDir } }, { name: `b${i}`, kind: 'postgres', isBranch: true, branchKey: `b${i}`, secrets: { url: s.url } });
  }
  // The reference: the same data loaded by one process, no fan-out.
  const r = EtlRequest.parse(request('one'));
  const env = parseEnv({ TRIBUTARY_DATA_DIR: dataDir } as unknown as NodeJS.ProcessEnv);
  const summary = await executeEtl({ pool: db.pool, env, logger: silentLogger, paths: dataDirPaths(dataDir) }, r);
  expect(summary.units.filter((u) => u.status !== 'SUCCESS')).toEqual([]);
}, 300_000);

afterEach(async () => { await stopAll(); });

afterAll(async () => {
  await stopAll();
  for (const s of scratch) await s.drop();
  await db?.drop();
  if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
});

async function runOnWorkers(ns: string, during?: (runId: string) => Promise<void>, params: Record<string, unknown> = request(ns), workers = 3) {
  await waitForWorkers(db.pool, workers);
  const { runId } = await enqueueJob({ pool: db.pool, jobs, env: envOf() }, { kind: 'etl.run', params, createdBy: 'test' });
  await during?.(runId);
  const run = await runEnded(db.pool, runId);
  return { run, units: await listRunUnits(db.pool, runId) };
}

describe('an ETL run fanned out over worker processes', () => {
  it('three workers share a seven-branch INITIAL: each runs some units; the lake equals the sources and a single-process run', async () => {
    const ws = [startWorker(), startWorker(), startWorker()];
    const { run, units } = await runOnWorkers('three');
    expect(run.error).toBeNull();
    expect(run.status).toBe('succeeded');
    const ok = units.filter((u) => u.status === 'succeeded');
    expect(new Set(ok.map((u) => u.unit)).size).toBe(N * tables.length);
    const pids = new Set(ok.map((u) => u.workerId!.split(':')[1]));
    for (const w of ws) expect(pids, `worker ${w.pid} ran some units`).toContain(String(w.pid));
    const result = run.result as { units: { worker?: string }[] };
    expect(result.units.every((u) => typeof u.worker === 'string')).toBe(true);
    await expectLakeRight('three');
    const log = await db.pool.query(`select status, write_disposition, count(*)::int n from etl_meta.etl_run_log where pipeline_run_id = $1 group by 1, 2`, [`etl-${run.id}`]);
    expect(log.rows).toEqual([{ status: 'SUCCESS', write_disposition: 'replace', n: N * tables.length }]);
    // an INCREMENTAL with no source change (of the CDC-tracked tables: a date watermark re-reads its last day, a
    // keyless table reloads whole): its units warn in their own jobs, and the run that was started says it did nothing
    const idle = await runOnWorkers('three', undefined, { ...request('three'), mode: 'INCREMENTAL', tables: 'OASIS.CUSTOMERS,OASIS.PRODUCTS' });
    expect(idle.run.status).toBe('succeeded');
    expect((idle.run.result as { warnings: string[] }).warnings).toEqual([`nothing loaded: all ${N * 2} unit(s) extracted no rows and deleted none (no row changed at the sources since their watermarks)`]);
  }, 300_000);

  it('kill -9 of a worker mid-run: its units run again elsewhere, the run completes, nothing is doubled', async () => {
    const ws = [startWorker(), startWorker(), startWorker()];
    let victim: ChildProcess | undefined;
    const { run, units } = await runOnWorkers('killed', async (parent) => {
      const { pid } = await unitOnAnotherWorker(db.pool, parent);
      victim = ws.find((w) => w.pid === pid)!;
      victim.kill('SIGKILL');
    });
    expect(run.error).toBeNull();
    expect(run.status).toBe('succeeded');
    expectLostUnitsRanElsewhere(units, victim!.pid!);
    await expectLakeRight('killed');
  }, 300_000);

  it('SIGTERM drains a worker mid-run: it finishes the unit it holds, takes no more, exits; the run completes', async () => {
    const ws = [startWorker(), startWorker(), startWorker()];
    let drained: ChildProcess | undefined;
    let held = '';
    let exit: Promise<number | null> | undefined;
    const { run, units } = await runOnWorkers('drained', async (parent) => {
      const on = await unitOnAnotherWorker(db.pool, parent);
      drained = ws.find((w) => w.pid === on.pid)!;
      held = on.unit;
      exit = new Promise((res) => drained!.once('exit', (code) => res(code)));
      drained!.kill('SIGTERM');
    });
    expect(await exit).toBe(0);
    expect(run.status).toBe('succeeded');
    const mine = units.filter((u) => u.workerId?.split(':')[1] === String(drained!.pid));
    expect(mine.find((u) => u.unit === held)?.status).toBe('succeeded');
    expect(mine.filter((u) => u.status !== 'succeeded')).toEqual([]);
    await expectLakeRight('drained');
  }, 300_000);

  it('one worker alone (concurrency 1) still finishes a fanned-out run (TRIBUTARY_FANOUT=on): the coordinator runs its own units', async () => {
    startWorker({ TRIBUTARY_WORKER_CONCURRENCY: '1', TRIBUTARY_FANOUT: 'on' });
    const { run, units } = await runOnWorkers('single', undefined, request('single'), 1);
    expect(run.error).toBeNull();
    expect(run.status).toBe('succeeded');
    expect(new Set(units.map((u) => u.workerId)).size).toBe(1);
    await expectLakeRight('single');
  }, 300_000);

  it('a worker\'s units of one run share each branch\'s source: far fewer sessions at a branch than units', async () => {
    startWorker({ TRIBUTARY_WORKER_CONCURRENCY: '1', TRIBUTARY_FANOUT: 'on' });
    // sessions ever opened at each branch database (pg_stat_database counts them; ended ones are flushed)
    const sessions = async () => (await db.pool.query<{ datname: string; n: number }>(`SELECT datname, sessions::int AS n FROM pg_stat_database WHERE datname = ANY($1)`,
      [scratch.map((x) => new URL(x.url).pathname.slice(1))])).rows;
    await db.pool.query('SELECT pg_stat_clear_snapshot()');
    const before = new Map((await sessions()).map((r) => [r.datname, r.n]));
    // pool size 1: the coordinator's source and the shared unit source hold one session each
    const { run, units } = await runOnWorkers('shared', undefined, { ...request('shared'), poolSize: 1 }, 1);
    expect(run.error).toBeNull();
    expect(units.filter((u) => u.status === 'succeeded').length).toBe(N * tables.length);
    await db.pool.query('SELECT pg_stat_clear_snapshot()');
    for (const r of await sessions()) {
      // a source per unit opened one session per unit: tables.length (6) or more per branch
      expect(r.n - before.get(r.datname)!, r.datname).toBeLessThan(tables.length);
    }
    await expectLakeRight('shared');
  }, 300_000);

  it('TRIBUTARY_FANOUT=auto and one worker alive: the run is not fanned out (no unit jobs), and is right', async () => {
    startWorker();
    const { run, units } = await runOnWorkers('alone', undefined, request('alone'), 1);
    expect(run.error).toBeNull();
    expect(run.status).toBe('succeeded');
    expect(units).toEqual([]);
    await expectLakeRight('alone');
  }, 300_000);
});
