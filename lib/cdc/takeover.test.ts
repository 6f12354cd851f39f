// A `cdc.stream` run on a real worker process killed with SIGKILL is queued again by the other
// worker's reaper (`resumeOnWorkerLoss`) and taken over: the stream resumes from the recorded LSN,
// so every change before and after the kill is in the lake exactly once.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnection } from '../connections';
import { openLake } from '../lake';
import { parseEnv } from '../config/env';
import { createJobRegistry, enqueueJob, getJobRun } from '../jobs';
import { testCliEdge } from '../testing/cli-edge';
import { startLogicalPostgres, type LogicalPostgres } from '../testing/logical-pg';
import { closeCdcTest } from '../testing/cdc-teardown';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { waitFor } from '../testing/wait-for';
import { runEnded, waitForWorkers, workerProcesses } from '../testing/worker-processes';
import { registerCdcCommands } from './cli';
import { cdcJobs } from './jobs';
import { readBranchState, setBranchStatus } from './state';

const SECRET = 'cdc-takeover-test-secret-0123456789';
let server: LogicalPostgres;
let db: TestDatabase;
let dir: string;
let src: pg.Client;
const workers = workerProcesses({ databaseUrl: () => db.url, dataDir: () => dir, env: { TRIBUTARY_SECRET: SECRET } });
const tablesFile = () => ({ TRIBUTARY_TABLES_FILE: path.join(dir, 'tables.json') });

/** `tributary cdc setup` in this process; fails the test on any error output. */
async function setup(): Promise<void> {
  const program = new Command().exitOverride();
  registerCdcCommands(program, testCliEdge({ DATABASE_URL: db.url, TRIBUTARY_DATA_DIR: dir, TRIBUTARY_SECRET: SECRET, TRIBUTARY_TABLES_FILE: path.join(dir, 'tables.json'), LOG_LEVEL: 'error' }));
  const ow = process.stdout.write.bind(process.stdout);
  process.stdout.write = (() => true) as typeof process.stdout.write;
  try { await program.parseAsync(['node', 'tributary', 'cdc', 'setup', '--branch', 'shop1']); } finally { process.stdout.write = ow; }
  expect((await readBranchState(db.pool, 'shop1'))?.status).toBe('ready');
}

async function lakeRows(): Promise<string[]> {
  const t = await openLake({ pool: db.pool, warehouse: `file://${dir}/warehouse` }).loadTable('etl.orders');
  const out: string[] = [];
  for await (const b of t.scan({ partition: { BRANCH_ID: 'shop1' } })) for (const r of b.toArray()) out.push(`${r.order_id}:${r.qty}`);
  return out.sort();
}
async function sourceRows(): Promise<string[]> {
  return (await src.query(`SELECT order_id, qty FROM public.orders`)).rows.map((r) => `${r.order_id}:${r.qty}`).sort();
}
const workerOf = async (runId: string) => (await getJobRun(db.pool, runId))?.workerId ?? null;

describe('cdc.stream on worker processes', () => {
  beforeAll(async () => {
    server = await startLogicalPostgres();
    db = await createTestDatabase();
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cdc-takeover-'));
    await fs.writeFile(path.join(dir, 'tables.json'), JSON.stringify([{ table: 'public.orders', unique_key: 'order_id', cdc_column: 'updated_at', category: 'masters' }]));
    src = new pg.Client({ connectionString: server.url });
    await src.connect();
    await src.query(`CREATE TABLE public.orders (order_id int PRIMARY KEY, qty int, updated_at timestamptz DEFAULT now())`);
    await src.query(`INSERT INTO public.orders (order_id, qty) SELECT g, g FROM generate_series(1, 50) g`);
    await createConnection({ pool: db.pool, keys: { secret: SECRET, dataDir: dir } }, { name: 'shop1', kind: 'postgres', isBranch: true, branchKey: 'shop1', params: { cdc: 'log' }, secrets: { url: server.url } });
  }, 180_000);
  afterAll(async () => {
    await workers.stopAll();
    await closeCdcTest({ src, server, db, dir });
  }, 60_000);

  it('is taken over by another worker when its worker is killed, resuming exactly where it stood', async () => {
    await setup();
    const a = workers.start(tablesFile());
    await waitForWorkers(db.pool, 1);
    const env = parseEnv({ DATABASE_URL: db.url, TRIBUTARY_DATA_DIR: dir, TRIBUTARY_SECRET: SECRET } as unknown as NodeJS.ProcessEnv);
    const { runId } = await enqueueJob({ pool: db.pool, jobs: createJobRegistry(cdcJobs), env }, { kind: 'cdc.stream', params: { branch: 'shop1', flushInterval: '300ms' } });
    await waitFor('the stream on worker A', async () => (await workerOf(runId))?.includes(`:${a.pid}:`) && (await readBranchState(db.pool, 'shop1'))?.status === 'streaming', 120_000);
    await src.query(`UPDATE public.orders SET qty = qty + 100 WHERE order_id <= 10`);
    await waitFor('the first changes applied', async () => ((await readBranchState(db.pool, 'shop1'))?.rowsApplied ?? 0) >= 10, 120_000);

    const b = workers.start(tablesFile());
    await waitForWorkers(db.pool, 2);
    a.kill('SIGKILL');
    // changes while no worker streams: the slot holds them
    await src.query(`UPDATE public.orders SET qty = qty + 1000 WHERE order_id BETWEEN 5 AND 20`);
    await src.query(`DELETE FROM public.orders WHERE order_id IN (49, 50)`);
    await src.query(`INSERT INTO public.orders (order_id, qty) VALUES (51, 51)`);
    await waitFor('worker B to take the stream over', async () => (await workerOf(runId))?.includes(`:${b.pid}:`) && (await getJobRun(db.pool, runId))?.status === 'running', 120_000);
    const want = await sourceRows();
    await waitFor('the lake to equal the source', async () => JSON.stringify(await lakeRows()) === JSON.stringify(want), 120_000);
    expect(await lakeRows()).toHaveLength(49); // 50 − 2 deleted + 1 inserted, none doubled
    expect((await readBranchState(db.pool, 'shop1'))?.rowsApplied).toBe(10 + 16 + 2 + 1);

    const run = await getJobRun(db.pool, runId);
    expect(run?.attempts).toBe(2);
    expect(run?.logs.map((l) => l.message).join('\n')).toMatch(/stopped responding.*queued again for another worker/);
    // `cdc stop`: the stream ends after a last flush, the run succeeds
    await setBranchStatus(db.pool, 'shop1', 'stopped');
    expect((await runEnded(db.pool, runId, 60_000)).status).toBe('succeeded');
  }, 400_000);
});
