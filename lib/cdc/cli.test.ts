import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnection } from '../connections';
import { openLake } from '../lake';
import { parseEnv } from '../config/env';
import { silentLogger } from '../log';
import type { JobContext } from '../jobs/types';
import { cdcJobs } from './jobs';
import { testCliEdge } from '../testing/cli-edge';
import { startLogicalPostgres, type LogicalPostgres } from '../testing/logical-pg';
import { closeCdcTest } from '../testing/cdc-teardown';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { waitFor } from '../testing/wait-for';
import { registerCdcCommands } from './cli';
import { readBranchState } from './state';

const SECRET = 'cdc-cli-test-secret-0123456789';
let server: LogicalPostgres;
let db: TestDatabase;
let dir: string;
let src: pg.Client;

/** Run `tributary cdc …` in this process; what it printed and the exit code it set. */
async function cdc(...args: string[]): Promise<{ out: string; err: string; code: number }> {
  const program = new Command().exitOverride();
  registerCdcCommands(program, testCliEdge({ DATABASE_URL: db.url, TRIBUTARY_DATA_DIR: dir, TRIBUTARY_SECRET: SECRET, TRIBUTARY_TABLES_FILE: path.join(dir, 'tables.json'), LOG_LEVEL: 'error' }));
  const out: string[] = []; const err: string[] = [];
  const ow = process.stdout.write.bind(process.stdout); const ew = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((s: string) => { out.push(String(s)); return true; }) as typeof process.stdout.write;
  process.stderr.write = ((s: string) => { err.push(String(s)); return true; }) as typeof process.stderr.write;
  const before = process.exitCode;
  process.exitCode = 0;
  try {
    await program.parseAsync(['node', 'tributary', 'cdc', ...args]);
    return { out: out.join(''), err: err.join(''), code: Number(process.exitCode ?? 0) };
  } finally {
    process.stdout.write = ow; process.stderr.write = ew;
    process.exitCode = before;
  }
}

/** The lake's rows of public.events for branch shop1. */
async function eventRows(): Promise<{ ev_id: number; _deleted_at: unknown }[]> {
  const lake = openLake({ pool: db.pool, warehouse: `file://${dir}/warehouse` });
  const t = await lake.loadTable('etl.events');
  const out: { ev_id: number; _deleted_at: unknown }[] = [];
  for await (const b of t.scan({ partition: { BRANCH_ID: 'shop1' } })) {
    for (const r of b.toArray()) out.push({ ev_id: Number(r.ev_id), _deleted_at: r._deleted_at ?? null });
  }
  return out.sort((a, b) => a.ev_id - b.ev_id);
}

describe('tributary cdc', () => {
  beforeAll(async () => {
    server = await startLogicalPostgres();
    db = await createTestDatabase();
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cdc-cli-'));
    await fs.writeFile(path.join(dir, 'tables.json'), JSON.stringify([
      { table: 'public.orders', unique_key: 'order_id', cdc_column: 'updated_at', category: 'masters' },
      { table: 'public.events', unique_key: 'ev_id', cdc_column: 'at', category: 'masters', deletes: 'detect', soft_delete: true },
    ]));
    src = new pg.Client({ connectionString: server.url });
    await src.connect();
    await src.query(`CREATE TABLE public.orders (order_id int PRIMARY KEY, amount numeric(10,2), updated_at timestamptz DEFAULT now())`);
    await src.query(`INSERT INTO public.orders (order_id, amount) SELECT g, g * 1.5 FROM generate_series(1, 50) g`);
    await src.query(`CREATE TABLE public.events (ev_id int PRIMARY KEY, kind text, at timestamptz DEFAULT now())`);
    await src.query(`INSERT INTO public.events (ev_id, kind) SELECT g, 'k' || g FROM generate_series(1, 5) g`);
    const keys = { secret: SECRET, dataDir: dir };
    await createConnection({ pool: db.pool, keys }, { name: 'shop1', kind: 'postgres', isBranch: true, branchKey: 'shop1', params: { cdc: 'log' }, secrets: { url: server.url } });
    await createConnection({ pool: db.pool, keys }, { name: 'shop2', kind: 'postgres', isBranch: true, branchKey: 'shop2', params: {}, secrets: { url: server.url } });
  }, 180_000);
  afterAll(() => closeCdcTest({ src, server, db, dir }), 60_000);

  it('refuses a branch not set to `cdc: log`, naming the setting', async () => {
    const r = await cdc('setup', '--branch', 'shop2');
    expect(r.code).toBe(2);
    expect(r.err).toContain('cdc = "log"');
    expect((await cdc('setup', '--branch', 'nope')).err).toContain('no such branch');
  });

  it('setup, start, status, stop and drop (drop asks for --yes)', async () => {
    const s = await cdc('setup', '--branch', 'shop1');
    expect(s.err).toBe('');
    expect(s.out).toContain('slot tributary_shop1');
    const started = cdc('start', '--branch', 'shop1', '--flush-interval', '200ms');
    await src.query(`UPDATE public.orders SET amount = amount + 1 WHERE order_id <= 10`);
    await src.query(`DELETE FROM public.orders WHERE order_id = 50`);
    await waitFor('the changes applied', async () => ((await readBranchState(db.pool, 'shop1'))?.rowsApplied ?? 0) >= 11, 60_000);
    const st = JSON.parse((await cdc('status', '--branch', 'shop1', '--json')).out);
    expect(st).toMatchObject({ branch: 'shop1', status: 'streaming', slotExists: true, rowsApplied: 11 });
    // soft_delete: the deleted row stays, stamped in _deleted_at
    await src.query(`DELETE FROM public.events WHERE ev_id = 3`);
    await waitFor('the soft delete', async () => (await eventRows()).find((r) => r.ev_id === 3)?._deleted_at != null, 60_000);
    expect((await eventRows()).filter((r) => r._deleted_at != null).map((r) => r.ev_id)).toEqual([3]);
    // a TRUNCATE empties the branch's partition; rows after it stay
    await src.query(`BEGIN; TRUNCATE public.events; INSERT INTO public.events (ev_id, kind) VALUES (100, 'after'); COMMIT`);
    await waitFor('the truncate', async () => JSON.stringify((await eventRows()).map((r) => r.ev_id)) === '[100]', 60_000);
    expect(typeof st.lagBytes).toBe('number');
    expect(st.appliedLsn).toMatch(/\//);
    expect((await cdc('stop', '--branch', 'shop1')).out).toContain('is kept');
    const done = await started;
    expect(done.out).toContain('stopped:');
    expect((await readBranchState(db.pool, 'shop1'))?.status).toBe('stopped');
    const refused = await cdc('drop', '--branch', 'shop1');
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('--yes');
    expect((await cdc('drop', '--branch', 'shop1', '--yes')).out).toContain('dropped');
    expect((await src.query(`SELECT 1 FROM pg_replication_slots WHERE slot_name = 'tributary_shop1'`)).rowCount).toBe(0);
    expect(await readBranchState(db.pool, 'shop1')).toBeNull();
  }, 180_000);

  it('the handler of the cdc.stream job streams until its run is cancelled, counting what it applied as progress', async () => {
    expect((await cdc('setup', '--branch', 'shop1')).err).toBe('');
    const ac = new AbortController();
    const progress: number[] = [];
    const ctx = {
      runId: 'job-1', pool: db.pool, logger: silentLogger, signal: ac.signal, progress: (d: number) => progress.push(d),
      env: parseEnv({ DATABASE_URL: db.url, TRIBUTARY_DATA_DIR: dir, TRIBUTARY_SECRET: SECRET, TRIBUTARY_TABLES_FILE: path.join(dir, 'tables.json') }),
    } as unknown as JobContext;
    const def = cdcJobs[0];
    const run = def.run(ctx, def.payload.parse({ branch: 'shop1', flushInterval: '200ms' }));
    await src.query(`INSERT INTO public.orders (order_id, amount) VALUES (900, 9), (901, 9)`);
    await waitFor('the job to apply the inserts', () => progress.at(-1) === 2, 60_000);
    // an update that leaves a TOASTed value alone sends it as "unchanged": the lake's row keeps it
    const memo = crypto.randomBytes(9000).toString('base64');
    await src.query(`ALTER TABLE public.orders ADD COLUMN memo text`);
    await src.query(`UPDATE public.orders SET memo = $1 WHERE order_id = 900`, [memo]);
    await waitFor('the memo', () => progress.at(-1) === 3, 60_000);
    await src.query(`UPDATE public.orders SET amount = 10 WHERE order_id = 900`);
    await waitFor('the second update', () => progress.at(-1) === 4, 60_000);
    const lake = openLake({ pool: db.pool, warehouse: `file://${dir}/warehouse` });
    const t = await lake.loadTable('etl.orders');
    const got: { memo: unknown; amount: unknown }[] = [];
    for await (const b of t.scan({ partition: { BRANCH_ID: 'shop1' } })) for (const r of b.toArray()) if (r.order_id === 900) got.push({ memo: r.memo, amount: String(r.amount) });
    expect(got.length).toBe(1);
    expect(got[0].memo).toBe(memo);
    ac.abort();
    expect(await run).toMatchObject({ branch: 'shop1', rows: 4 });
    expect((await readBranchState(db.pool, 'shop1'))?.status).toBe('stopped');
    expect(() => def.payload.parse({ branch: 'shop 1' })).toThrow(/letters, digits/);
  }, 180_000);

  it('two branches stream at once, each into its own partition', async () => {
    await src.query('CREATE DATABASE shop3db');
    const url3 = server.url.replace(/\/postgres$/, '/shop3db');
    const s3 = new pg.Client({ connectionString: url3 });
    await s3.connect();
    try {
      await s3.query(`CREATE TABLE public.orders (order_id int PRIMARY KEY, amount numeric(10,2), updated_at timestamptz DEFAULT now())`);
      await s3.query(`CREATE TABLE public.events (ev_id int PRIMARY KEY, kind text, at timestamptz DEFAULT now())`);
      await s3.query(`INSERT INTO public.orders (order_id, amount) SELECT g, g FROM generate_series(1, 20) g`);
      await createConnection({ pool: db.pool, keys: { secret: SECRET, dataDir: dir } }, { name: 'shop3', kind: 'postgres', isBranch: true, branchKey: 'shop3', params: { cdc: 'log' }, secrets: { url: url3 } });
      expect((await cdc('setup', '--branch', 'shop3')).err).toBe('');
      const env = parseEnv({ DATABASE_URL: db.url, TRIBUTARY_DATA_DIR: dir, TRIBUTARY_SECRET: SECRET, TRIBUTARY_TABLES_FILE: path.join(dir, 'tables.json') });
      const ac = new AbortController();
      const def = cdcJobs[0];
      const runs = ['shop1', 'shop3'].map((branch) => def.run({ runId: `job-${branch}`, pool: db.pool, logger: silentLogger, signal: ac.signal, progress: () => {}, env } as unknown as JobContext,
        def.payload.parse({ branch, flushInterval: '200ms' })));
      for (const r of runs) r.catch(() => {}); // awaited below; a failure is seen there
      await src.query(`DELETE FROM public.orders WHERE order_id > 40`);
      await s3.query(`UPDATE public.orders SET amount = -1 WHERE order_id <= 5; DELETE FROM public.orders WHERE order_id = 20`);
      const lake = openLake({ pool: db.pool, warehouse: `file://${dir}/warehouse` });
      const orders = async (branch: string) => {
        const t = await lake.loadTable('etl.orders');
        const out: string[] = [];
        for await (const b of t.scan({ partition: { BRANCH_ID: branch } })) for (const r of b.toArray()) out.push(String(r.order_id));
        return out.sort();
      };
      const want = async (c: pg.Client) => (await c.query(`SELECT order_id FROM public.orders`)).rows.map((r) => String(r.order_id)).sort();
      try {
        await waitFor('both branches in the lake', async () => JSON.stringify(await orders('shop1')) === JSON.stringify(await want(src)) && JSON.stringify(await orders('shop3')) === JSON.stringify(await want(s3)), 60_000, 300);
      } finally {
        ac.abort();
        await Promise.allSettled(runs);
      }
      expect(await orders('shop3')).not.toContain('20');
      // shop1: 41–49 and 900–901 deleted (50 went earlier); shop3: 5 updated, 1 deleted
      expect((await Promise.all(runs)).map((r) => (r as { rows: number }).rows)).toEqual([11, 6]);
    } finally { await s3.end(); }
  }, 180_000);
});
