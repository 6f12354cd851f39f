import crypto from 'node:crypto';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScratchDatabase, createTestDatabase, type TestDatabase } from '../testing/pg';
import { silentLogger } from '../log';
import { openLake, type Lake } from '../lake';
import { createConnection } from '../connections';
import { createPostgresSource } from '../sources';
import { lakeTarget } from './lake-target';
import { runEtl, type BranchHandle } from './runner';
import { DEFAULT_SETTINGS, type EtlSettings } from './settings';
import { parseTablesConfig } from '../config/tables-json';
import { FIXTURE_TABLES, queryBranch, seedBranch } from '../testing/branch-fixtures';
import { chdbRows, loadChdb } from './test-lake-readers';
import { closedPort } from '../testing/closed-port';

// Failure handling against real Postgres and the real lake: a branch refusing
// connections, a connection cut mid-COPY, a fatal SQL error, kill -9 of the CLI.
let db: TestDatabase;
let lake: Lake;
let warehouse: string;
let staging: string;
const scratch: { url: string; drop(): Promise<void> }[] = [];
const opened: BranchHandle[] = [];
const servers: net.Server[] = [];
const tables = parseTablesConfig(FIXTURE_TABLES);
const settings = (o: Partial<EtlSettings>): EtlSettings => ({ ...DEFAULT_SETTINGS, retries: 2, retryDelayMs: 20, fetchBatchSize: 50, ...o });
const pgBranch = (key: string, url: string): BranchHandle => {
  const b = { key, source: createPostgresSource({ branch: key, connectionString: url, poolSize: 2, connectTimeoutSeconds: 3 }) };
  opened.push(b);
  return b;
};

/** A TCP proxy to `port` that cuts the first connection carrying COPY data in the middle of its first tuple. */
async function cuttingProxy(port: number): Promise<{ port: number; cuts: () => number }> {
  let cuts = 0;
  const server = net.createServer((client) => {
    const upstream = net.connect(port, '127.0.0.1');
    client.pipe(upstream);
    upstream.on('data', (d: Buffer) => {
      const at = cuts === 0 ? d.indexOf(Buffer.from('PGCOPY\n', 'latin1')) : -1;
      if (at < 0) { client.write(d); return; }
      // forward the COPY header and a few bytes of the first tuple, then drop the connection
      cuts++;
      client.write(d.subarray(0, at + 40), () => { client.destroy(); upstream.destroy(); });
    });
    const end = () => { client.destroy(); upstream.destroy(); };
    client.on('error', end); upstream.on('error', end); client.on('close', end); upstream.on('close', end);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { port: (server.address() as net.AddressInfo).port, cuts: () => cuts };
}

/**
 * A TCP proxy to `port` that stops answering a connection once it sends a query matching `hold`:
 * that read waits until the client goes away, like a branch that stalls mid-run.
 */
async function stallingProxy(port: number, hold: RegExp): Promise<{ port: number; held: () => number }> {
  let held = 0;
  const server = net.createServer((client) => {
    const upstream = net.connect(port, '127.0.0.1');
    let holding = false;
    client.on('data', (d: Buffer) => {
      if (!holding && hold.test(d.toString('latin1'))) { holding = true; held++; }
      upstream.write(d);
    });
    upstream.on('data', (d: Buffer) => { if (!holding) client.write(d); });
    const end = () => { client.destroy(); upstream.destroy(); };
    client.on('error', end); upstream.on('error', end); client.on('close', end); upstream.on('close', end);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { port: (server.address() as net.AddressInfo).port, held: () => held };
}

beforeAll(async () => {
  await loadChdb();
  db = await createTestDatabase();
  warehouse = path.resolve('lib/etl', `.test-warehouse-${crypto.randomBytes(4).toString('hex')}`);
  await fs.mkdir(warehouse, { recursive: true });
  staging = await fs.mkdtemp(path.join(os.tmpdir(), 'etl-fail-'));
  lake = openLake({ pool: db.pool, warehouse: `file://${warehouse}` });
  for (let i = 0; i < 3; i++) {
    const s = await createScratchDatabase('br');
    scratch.push(s);
    await seedBranch(s.url, { index: i, customers: 20, orders: 60 });
  }
});

afterAll(async () => {
  await Promise.all(opened.map((b) => b.source.close()));
  for (const s of servers) s.close();
  for (const s of scratch) await s.drop();
  await db?.drop();
  await fs.rm(warehouse, { recursive: true, force: true });
  await fs.rm(staging, { recursive: true, force: true });
});

describe('failure handling', () => {
  it('a branch refusing connections: others load, FAILED with attempts = retries + 1, its rows survive; the INITIAL replaces only the branches it read', async () => {
    const healthy = scratch.map((s, i) => pgBranch(`b${i}`, s.url));
    const first = await runEtl({ pool: db.pool, target: lakeTarget(lake, { namespace: 'etl' }), branches: healthy, tables, settings: settings({ mode: 'INITIAL', tables: ['customers'] }), logger: silentLogger, stagingRoot: staging });
    expect(first.ok).toBe(true);
    // a row deleted at b0 since: the INITIAL of b0 (a replace of its partition) does not keep it
    await queryBranch(scratch[0].url, `DELETE FROM oasis.customers WHERE customer_id = (SELECT min(customer_id) FROM oasis.customers)`);
    const dead = pgBranch('b2', `postgres://postgres@127.0.0.1:${await closedPort()}/nope`);
    const r = await runEtl({ pool: db.pool, target: lakeTarget(lake, { namespace: 'etl' }), branches: [healthy[0], healthy[1], dead], tables, settings: settings({ mode: 'INITIAL', tables: ['customers'] }), logger: silentLogger, stagingRoot: staging });
    expect(r.ok).toBe(false);
    const log = await db.pool.query(`SELECT branch_id, status, attempts, write_disposition FROM etl_meta.etl_run_log WHERE pipeline_run_id = $1 ORDER BY branch_id`, [r.runId]);
    expect(log.rows).toEqual([
      { branch_id: 'b0', status: 'SUCCESS', attempts: 1, write_disposition: 'replace' },
      { branch_id: 'b1', status: 'SUCCESS', attempts: 1, write_disposition: 'replace' },
      { branch_id: 'b2', status: 'FAILED', attempts: 3, write_disposition: 'replace' },
    ]);
    const t = await lake.loadTable('etl.customers');
    const per = chdbRows(t, (f) => `SELECT BRANCH_ID AS b, count() AS n FROM ${f} GROUP BY b ORDER BY b`);
    expect(per.map((x) => Number(x.n))).toEqual([19, 20, 20]);
    const ctl = await db.pool.query(`SELECT status FROM etl_meta.etl_control WHERE table_name = 'customers' AND branch_id = 'b2'`);
    expect(ctl.rows[0].status).toBe('FAILED');
  });

  it('a connection cut mid-extract is retried and then succeeds', async () => {
    const proxy = await cuttingProxy(Number(new URL(scratch[1].url).port));
    const u = new URL(scratch[1].url);
    u.port = String(proxy.port);
    const b = pgBranch('b1', u.toString());
    const r = await runEtl({ pool: db.pool, target: lakeTarget(lake, { namespace: 'etl' }), branches: [b], tables, settings: settings({ mode: 'INITIAL', tables: ['orders'] }), logger: silentLogger, stagingRoot: staging });
    expect(proxy.cuts()).toBe(1);
    expect(r.units.map((x) => [x.status, x.attempts])).toEqual([['SUCCESS', 2]]);
    const t = await lake.loadTable('etl.orders');
    const n = chdbRows(t, (f) => `SELECT count() AS n, uniqExact(order_id) AS k FROM ${f} WHERE BRANCH_ID = 'b1'`)[0];
    expect(Number(n.n)).toBe(r.units[0].rows);
    expect(Number(n.k)).toBe(r.units[0].rows);
  });

  it('a fatal SQL error is not retried and stops later phases', async () => {
    const bad = parseTablesConfig([...FIXTURE_TABLES.slice(0, 1), { table: 'OASIS.NO_SUCH_TABLE', unique_key: 'id', category: 'masters' }, FIXTURE_TABLES[2]]);
    const b = pgBranch('b0', scratch[0].url);
    const r = await runEtl({ pool: db.pool, target: lakeTarget(lake, { namespace: 'etl' }), branches: [b], tables: bad, settings: settings({ mode: 'INITIAL', retries: 3, retryDelayMs: 600_000 }), logger: silentLogger, stagingRoot: staging });
    const u = r.units.find((x) => x.table === 'no_such_table')!;
    expect(u.status).toBe('FAILED');
    expect(u.attempts).toBe(1);
    expect(u.error).toMatch(/^etl: tables.json entry 'no_such_table' \(OASIS.NO_SUCH_TABLE\) on branch b0: .*does not exist/);
    expect(r.units.find((x) => x.table === 'customers')!.status).toBe('SUCCESS');
    expect(r.phases).toEqual([{ phase: 'masters', ran: true, ok: false }, { phase: 'transactions', ran: false, ok: false }]);
    expect(r.ok).toBe(false);
  });

  it('kill -9 of the CLI mid-load, then a rerun: lake equals sources, no duplicates', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'etl-cli-'));
    const secret = crypto.randomBytes(16).toString('hex');
    // b2 reaches its database through a proxy that holds its transactions COPYs: the masters phase
    // commits, the transactions phase cannot finish (every table waits for b2), so the kill lands mid-load
    const proxy = await stallingProxy(Number(new URL(scratch[2].url).port), /COPY[\s\S]*OASIS\.(ORDERS|ORDER_LINES|APPOINTMENTS)/i);
    const viaProxy = new URL(scratch[2].url);
    viaProxy.port = String(proxy.port);
    const connect = async (urls: string[]) => {
      for (let i = 0; i < 3; i++) {
        await createConnection({ pool: db.pool, keys: { secret, dataDir } }, { name: `b${i}`, kind: 'postgres', isBranch: true, branchKey: `b${i}`, params: { pool_size: 2 }, secrets: { url: urls[i] } }, { upsert: true });
      }
    };
    await connect([scratch[0].url, scratch[1].url, viaProxy.toString()]);
    const tablesFile = path.join(dataDir, 'tables.json');
    await fs.writeFile(tablesFile, JSON.stringify(FIXTURE_TABLES));
    const wh2 = path.resolve('lib/etl', `.test-warehouse-${crypto.randomBytes(4).toString('hex')}`);
    const env = { ...process.env, DATABASE_URL: db.url, TRIBUTARY_DATA_DIR: dataDir, TRIBUTARY_SECRET: secret, TRIBUTARY_WAREHOUSE: `file://${wh2}`, LOG_LEVEL: 'warn' };
    const cli = (args: string[]) => spawn(process.execPath, ['bin/tributary.mjs', 'etl', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const exitOf = (p: ReturnType<typeof cli>) => new Promise<number | null>((r) => p.on('exit', (code) => r(code)));
    const masters = FIXTURE_TABLES.filter((t) => t.category === 'masters').length;
    const committed = async (runId: string) => (await db.pool.query(`SELECT table_name, branch_id FROM etl_meta.control_state WHERE last_run_id = $1 ORDER BY 1, 2`, [runId])).rows;
    try {
      // the killed run is the one whose run-log rows come after those of the earlier tests
      const before = (await db.pool.query(`SELECT coalesce(max(id), 0)::int AS id FROM etl_meta.etl_run_log`)).rows[0].id;
      const p = cli(['--mode', 'INITIAL', '--tables-file', tablesFile, '--namespace', 'killed', '--fetch-batch-size', '10', '--load-workers', '1']);
      const exited = exitOf(p);
      // wait until the masters phase has committed on every branch and b2's transactions read is held
      let runId: string | null = null;
      for (let i = 0; i < 1200 && p.exitCode === null && !(runId && (await committed(runId)).length === masters * 3 && proxy.held() > 0); i++) {
        runId ??= (await db.pool.query(`SELECT pipeline_run_id FROM etl_meta.etl_run_log WHERE id > $1 ORDER BY id LIMIT 1`, [before])).rows[0]?.pipeline_run_id ?? null;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(runId, 'the killed run never committed its masters').not.toBeNull();
      // mid-load at the kill: the process still runs, some units committed (the masters) and none of the transactions
      expect(p.exitCode).toBeNull();
      expect(proxy.held()).toBeGreaterThan(0);
      p.kill('SIGKILL');
      await exited;
      const atKill = await committed(runId!);
      expect(atKill.length).toBe(masters * 3);
      expect(new Set(atKill.map((r) => r.table_name))).toEqual(new Set(['customers', 'products']));
      const logged = await db.pool.query(`SELECT count(*)::int n FROM etl_meta.etl_run_log WHERE pipeline_run_id = $1 AND category = 'transactions'`, [runId]);
      expect(logged.rows[0].n).toBe(0);

      await connect(scratch.map((x) => x.url));
      const again = cli(['--mode', 'INITIAL', '--tables-file', tablesFile, '--namespace', 'killed', '--json']);
      let out = '';
      again.stdout!.on('data', (d) => { out += d; });
      let err = '';
      again.stderr!.on('data', (d) => { err += d; });
      expect(await exitOf(again), err).toBe(0);
      expect(JSON.parse(out).ok).toBe(true);
      const l2 = openLake({ pool: db.pool, warehouse: `file://${wh2}` });
      // each table's keys (and one value column) per branch, from the lake and from the source databases
      const checks = [
        { table: 'customers', lake: 'toString(customer_id), name', source: `SELECT customer_id::text AS k, name AS v FROM oasis.customers` },
        { table: 'orders', lake: 'toString(order_id), toString(customer_id)', source: `SELECT order_id::text AS k, customer_id::text AS v FROM oasis.orders WHERE order_date >= '2024-01-01'` },
        {
          table: 'order_lines', lake: 'concat(toString(order_id), \'/\', toString(line_no)), toString(qty)',
          source: `SELECT l.order_id || '/' || l.line_no AS k, l.qty::text AS v FROM oasis.order_lines l JOIN oasis.orders o ON o.order_id = l.order_id WHERE o.order_date >= '2024-01-01'`,
        },
      ];
      for (const c of checks) {
        const t = await l2.loadTable(`killed.${c.table}`);
        const lake = chdbRows(t, (f) => `SELECT BRANCH_ID AS b, tuple(${c.lake}) AS kv FROM ${f}`).map((r) => { const [k, v] = r.kv as string[]; return `${r.b} ${k} ${v}`; }).sort();
        const source: string[] = [];
        for (let i = 0; i < 3; i++) for (const r of await queryBranch(scratch[i].url, c.source)) source.push(`b${i} ${r.k} ${r.v}`);
        expect(source.length, c.table).toBeGreaterThan(0);
        expect(lake, c.table).toEqual(source.sort());
      }
    } finally {
      await fs.rm(wh2, { recursive: true, force: true });
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });
});
