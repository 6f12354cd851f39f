import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEnv, type Env } from '../config/env';
import { createPrisma, type Db } from '../db/prisma';
import { createJobRegistry, enqueueJob, type JobCatalog, startWorker, type WorkerHandle } from '../jobs';
import { silentLogger } from '../log';
import { createFlow, getFlowRun, startFlowRun, startFlowScheduler, type SchedulerHandle } from '../flows';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { jobDefinitions } from '../../workers/jobs';
import { makeShopLake, SHOP_PROJECT } from './test-project';
import { waitFor as waitUntil } from '../testing/wait-for';

let catalog: JobCatalog;

// Issue #22 (2): models from a data folder that is not below the folder the worker or the CLI
// started in (`TRIBUTARY_DATA_DIR=/var/lib/tributary` in a deployment; here a folder under the
// system temp directory, outside the repository). The embedded ClickHouse used to refuse the
// lake there ("reads files only below its working directory"), and views it made held paths
// relative to the process that made them. Built through a worker's job, a flow node and the
// CLI started in yet another folder, each reading the others' views.
const ROOT = path.resolve('.');
const jobs = createJobRegistry(jobDefinitions);
let db: TestDatabase; let prisma: Db; let env: Env; let dataDir: string; let elsewhere: string;
let worker: WorkerHandle; let flows: SchedulerHandle;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trb-models-data-'));
  elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'trb-models-cwd-'));
  expect(path.relative(ROOT, dataDir).startsWith('..')).toBe(true);
  db = await createTestDatabase();
  prisma = createPrisma(db.url, { max: 2 });
  env = parseEnv({ DATABASE_URL: db.url, TRIBUTARY_DATA_DIR: dataDir } as unknown as NodeJS.ProcessEnv);
  expect(env.warehouse).toBe(`file://${dataDir}/warehouse`);
  await makeShopLake(db.pool, env.warehouse);
  // the default project folder, <data>/models, as a deployment has it
  for (const [rel, text] of Object.entries(SHOP_PROJECT)) {
    fs.mkdirSync(path.dirname(path.join(dataDir, 'models', rel)), { recursive: true });
    fs.writeFileSync(path.join(dataDir, 'models', rel), text);
  }
  catalog = { jobs, env };
  worker = await startWorker({ jobs, pool: db.pool, env, logger: silentLogger, concurrency: 1, heartbeatMs: 300, staleAfterMs: 5000 });
  flows = startFlowScheduler({ pool: db.pool, catalog, url: db.url, logger: silentLogger, tickMs: 200, schedule: false });
});

afterAll(async () => {
  await flows?.stop();
  await worker?.stop({ timeoutMs: 10_000 });
  await prisma?.$disconnect();
  await db?.drop();
  for (const d of [dataDir, elsewhere]) if (d) fs.rmSync(d, { recursive: true, force: true });
});

const waitFor = <T>(what: string, fn: () => Promise<T | null | undefined | false> | T | null | undefined | false, ms = 90_000) => waitUntil(what, fn, ms);

const finished = (runId: string) => waitFor(`job ${runId}`, async () => {
  const r = (await db.pool.query(`select status, result, error from job_runs where id = $1`, [runId])).rows[0];
  return r && ['succeeded', 'failed', 'cancelled'].includes(r.status) ? r : null;
});

/** `tributary models …` started in a folder that is neither the repository nor the data folder. */
function cli(...args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const c = spawn(process.execPath, [path.join(ROOT, 'bin/tributary.mjs'), 'models', ...args], {
      cwd: elsewhere, env: { ...process.env, DATABASE_URL: db.url, TRIBUTARY_DATA_DIR: dataDir, LOG_LEVEL: 'error' },
    });
    let out = ''; let err = '';
    c.stdout.on('data', (d) => (out += d)); c.stderr.on('data', (d) => (err += d));
    c.on('close', (code) => resolve({ code, out, err }));
  });
}

describe('models with the data folder outside the working directory', () => {
  it('a models.build job on the worker builds every model and test; its views hold absolute paths in the warehouse', async () => {
    const { runId } = await enqueueJob({ pool: db.pool, jobs, env }, { kind: 'models.build', params: {} });
    const r = await finished(runId);
    expect(r.error).toBeNull();
    expect(r.status).toBe('succeeded');
    expect(r.result.results.find((x: { name: string }) => x.name === 'customer_orders')).toMatchObject({ status: 'success', rows: 3 });
    expect(r.result.results.every((x: { status: string }) => ['success', 'pass'].includes(x.status))).toBe(true);
    // what the view stores: the warehouse folder as an absolute path, the same from every process
    const stored = (fs.readdirSync(path.join(dataDir, 'chdb'), { recursive: true }) as string[])
      .filter((f) => f.endsWith('stg_customers.sql')).map((f) => fs.readFileSync(path.join(dataDir, 'chdb', f), 'utf8'));
    expect(stored.length).toBeGreaterThan(0);
    for (const ddl of stored) expect(ddl).toContain(`icebergLocal('${dataDir}/warehouse/shop/customers')`);
  }, 120_000);

  it('the CLI, started elsewhere, reads the views the worker made and builds them again', async () => {
    const q = await cli('query', 'SELECT count() AS n FROM models.stg_orders', '--format', 'json');
    expect(q.err).toBe('');
    expect(q.code).toBe(0);
    expect(JSON.parse(q.out)).toEqual([{ n: expect.any(Number) }]);
    expect(JSON.parse(q.out)[0].n).toBeGreaterThan(0);
    const b = await cli('build', '--select', '+customer_orders', '--json');
    expect(b.err).toBe('');
    expect(b.code).toBe(0);
    expect(JSON.parse(b.out).results.find((x: { name: string }) => x.name === 'customer_orders')).toMatchObject({ status: 'success', rows: 3 });
  }, 120_000);

  it('a flow node runs the models after the CLI rebuilt them, and a models.query job reads them', async () => {
    await createFlow(db.pool, catalog, { name: 'nightly-models', nodes: [{ id: 'models', kind: 'models.run', params: { select: ['stg_customers+'] } }] });
    const run = await startFlowRun(db.pool, 'nightly-models', 'test');
    const done = await waitFor('the flow run', async () => {
      const f = await getFlowRun(db.pool, run.id);
      return f && ['succeeded', 'failed', 'cancelled'].includes(f.run.status) ? f : null;
    });
    expect(done.run.status, done.logs.map((l) => l.message).join('\n')).toBe('succeeded');
    const { runId } = await enqueueJob({ pool: db.pool, jobs, env }, { kind: 'models.query', params: { sql: 'SELECT customer_id, total FROM models.customer_orders ORDER BY customer_id' } });
    const q = await finished(runId);
    expect(q.status, q.error).toBe('succeeded');
    expect(q.result.rows).toEqual([{ customer_id: 1, total: 12.5 }, { customer_id: 2, total: 3 }, { customer_id: 3, total: 10 }]);
  }, 120_000);
});
