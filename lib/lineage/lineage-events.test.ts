// OpenLineage events of real runs, received by an in-process HTTP server as a
// lineage backend (Marquez) receives them: an ETL run from a real PostgreSQL
// branch into a real lake, a DQ run, a models build on the embedded chdb, a
// failing models run and a flow run starting a job. Every event validates
// against the vendored OpenLineage schemas, and each START has exactly one end.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEnv } from '../config/env';
import { createConnection } from '../connections';
import { createJobRegistry, enqueueJob, ensureQueue, getJobRun, type JobCatalog, startWorker, type WorkerHandle } from '../jobs';
import { silentLogger } from '../log';
import { createTestDatabase, createScratchDatabase, type TestDatabase } from '../testing/pg';
import { FIXTURE_TABLES, seedBranch } from '../testing/branch-fixtures';
import { openLineageValidator, startLineageSink, type LineageSink } from '../testing/openlineage';
import { etlJobs } from '../etl/jobs';
import { dqJobs } from '../dq/jobs';
import { modelsJobs } from '../models/jobs';
import { flowsJobs } from '../flows/jobs';
import { createFlow, getFlowRun, startFlowRun, startFlowScheduler } from '../flows';
import { makeModelsWarehouse, makeShopLake, SHOP_PROJECT } from '../models/test-project';
import { createLineageEmitter } from './emitter';
import { httpTransport } from './transport';
import type { LineageEmitter } from './types';
import { waitFor as waitUntil } from '../testing/wait-for';

let catalog: JobCatalog;

const SECRET = 'lineage-test-secret-0123456789';
const TABLES = FIXTURE_TABLES.filter((t) => t.table === 'OASIS.CUSTOMERS' || t.table === 'OASIS.ORDERS');
const jobs = createJobRegistry([...etlJobs, ...dqJobs, ...modelsJobs, ...flowsJobs]);
const validate = openLineageValidator();

let db: TestDatabase;
let source: { url: string; drop(): Promise<void> };
let wh: ReturnType<typeof makeModelsWarehouse>;
let sink: LineageSink;
let emitter: LineageEmitter;
let worker: WorkerHandle;
let exec: { stop(): Promise<void> };
let env: ReturnType<typeof parseEnv>;

const waitFor = <T>(what: string, fn: () => Promise<T | null | undefined | false> | T | null | undefined | false, ms = 90_000) => waitUntil(what, fn, ms);
const ended = (runId: string) => waitFor(`run ${runId}`, async () => {
  const r = await getJobRun(db.pool, runId);
  return r && ['succeeded', 'failed', 'cancelled'].includes(r.status) && r;
});
/** The events of one run once its end arrived. */
const eventsOf = (runId: string) => waitFor(`the end event of ${runId}`, () => {
  const evs = sink.events.filter((e) => e.run.runId === runId);
  return evs.some((e) => e.eventType !== 'START') && evs;
});
const run = async (kind: string, params: unknown) => {
  const { runId } = await enqueueJob({ pool: db.pool, jobs, env }, { kind, params });
  const r = await ended(runId);
  return { runId, status: r.status, error: r.error, events: await eventsOf(runId) };
};

beforeAll(async () => {
  db = await createTestDatabase();
  await ensureQueue(db.pool);
  source = await createScratchDatabase('ol');
  await seedBranch(source.url, { index: 0, customers: 20, orders: 40 });
  wh = makeModelsWarehouse(); // under the working directory: the embedded chdb reads the lake there
  await makeShopLake(db.pool, wh.uri);
  for (const [rel, text] of Object.entries({
    ...SHOP_PROJECT,
    'models/marts/customer_names.sql': "{{ config(materialized='table', order_by='customer_id') }}\nSELECT customer_id, name AS customer_name FROM {{ ref('stg_customers') }}\n",
    'models/marts/bad.sql': "SELECT nope FROM {{ ref('stg_orders') }}\n",
  })) {
    fs.mkdirSync(path.dirname(path.join(wh.dir, 'models', rel)), { recursive: true });
    fs.writeFileSync(path.join(wh.dir, 'models', rel), text);
  }
  env = parseEnv({ DATABASE_URL: db.url, TRIBUTARY_DATA_DIR: wh.dir, TRIBUTARY_WAREHOUSE: wh.uri, TRIBUTARY_SECRET: SECRET, TRIBUTARY_FANOUT: 'off' } as unknown as NodeJS.ProcessEnv);
  await createConnection({ pool: db.pool, keys: { secret: SECRET, dataDir: wh.dir } }, { name: 'b0', kind: 'postgres', isBranch: true, branchKey: 'b0', secrets: { url: source.url } });
  catalog = { jobs, env };
  sink = await startLineageSink();
  emitter = createLineageEmitter({ transport: httpTransport({ url: sink.url, apiKey: 'ol-key' }), namespace: 'tributary-test', logger: silentLogger });
  worker = await startWorker({ jobs, pool: db.pool, env, logger: silentLogger, heartbeatMs: 300, pollMs: 200, lineage: emitter });
  exec = startFlowScheduler({ pool: db.pool, catalog, url: db.url, logger: silentLogger, tickMs: 200, schedule: false, lineage: emitter });
});

afterAll(async () => {
  await exec?.stop();
  await worker?.stop({ timeoutMs: 10_000 });
  await sink?.close();
  await db?.drop();
  await source?.drop();
  wh?.remove();
});

describe('OpenLineage events of real runs', () => {
  it('an ETL run: START then COMPLETE, source tables in, lake tables out with schema and rows', async () => {
    const r = await run('etl.run', { mode: 'INITIAL', tablesJson: TABLES, fetchBatchSize: 500, retries: 0 });
    expect(r.status).toBe('succeeded');
    expect(r.events.map((e) => e.eventType)).toEqual(['START', 'COMPLETE']);
    const [start, end] = r.events;
    expect(start.job).toMatchObject({ namespace: 'tributary-test', name: 'etl.run', facets: { jobType: { processingType: 'BATCH', integration: 'TRIBUTARY', jobType: 'ETL' } } });
    const u = new URL(source.url);
    const db0 = u.pathname.slice(1);
    expect(end.inputs.map((d: any) => `${d.namespace} ${d.name}`).sort()).toEqual([
      `postgres://${u.hostname}:${u.port} ${db0}.oasis.customers`, `postgres://${u.hostname}:${u.port} ${db0}.oasis.orders`]);
    const out = Object.fromEntries(end.outputs.map((d: any) => [d.name, d]));
    expect(Object.keys(out).sort()).toEqual([path.join(wh.dir, 'etl/customers'), path.join(wh.dir, 'etl/orders')]);
    const customers = out[path.join(wh.dir, 'etl/customers')];
    expect(customers.namespace).toBe('file');
    expect(customers.outputFacets.outputStatistics.rowCount).toBe(20);
    const fields = customers.facets.schema.fields.map((f: any) => f.name.toLowerCase());
    expect(fields).toEqual(expect.arrayContaining(['customer_id', 'name', 'balance', 'branch_id']));
    expect(customers.facets.schema.fields.find((f: any) => f.name.toLowerCase() === 'customer_id').type).toBe('long');
    const orders = out[path.join(wh.dir, 'etl/orders')];
    const want = Number((await (async () => { const pg = await import('pg'); const c = new pg.default.Client({ connectionString: source.url }); await c.connect(); try { return (await c.query(`select count(*) from oasis.orders where order_date >= '2024-01-01'`)).rows[0].count; } finally { await c.end(); } })()));
    expect(orders.outputFacets.outputStatistics.rowCount).toBe(want);
    // No credentials anywhere in the events.
    expect(JSON.stringify(r.events)).not.toContain(u.password || '\u0000');
    expect(JSON.stringify(r.events)).not.toMatch(/postgres:\/\/[^/"]*@/);
    expect(sink.auth.every((a) => a === 'Bearer ol-key')).toBe(true);
  });

  it('a DQ run reads the source tables and the lake tables', async () => {
    const r = await run('dq.run', { tablesJson: TABLES });
    expect(r.status).toBe('succeeded');
    expect(r.events.map((e) => e.eventType)).toEqual(['START', 'COMPLETE']);
    const end = r.events[1];
    expect(end.job.facets.jobType.jobType).toBe('DQ');
    expect(end.outputs).toEqual([]);
    expect(end.inputs.map((d: any) => d.namespace).sort()).toEqual(['file', 'file', expect.stringMatching(/^postgres:\/\//), expect.stringMatching(/^postgres:\/\//)]);
    expect(end.inputs.find((d: any) => d.name === path.join(wh.dir, 'etl/customers')).facets.schema.fields.length).toBeGreaterThan(3);
  });

  it('a models build: models out with columns, rows and column lineage; lake sources and refs in', async () => {
    // stg_orders too: the relationships test between the staging models needs both.
    const r = await run('models.build', { select: '+customer_names stg_orders' });
    expect(r.error).toBeNull();
    expect(r.events.map((e) => e.eventType)).toEqual(['START', 'COMPLETE']);
    const end = r.events[1];
    expect(end.job.facets.jobType.jobType).toBe('MODEL');
    const ns = `clickhouse://${os.hostname()}`;
    const names = Object.fromEntries(end.outputs.map((d: any) => [d.name, d]));
    expect(Object.keys(names).sort()).toEqual(['models.customer_names', 'models.stg_customers', 'models.stg_orders']);
    const cn = names['models.customer_names'];
    expect(cn.namespace).toBe(ns);
    expect(cn.outputFacets.outputStatistics.rowCount).toBe(3);
    expect(cn.facets.schema.fields.map((f: any) => f.name)).toEqual(['customer_id', 'customer_name']);
    expect(cn.facets.columnLineage.fields).toEqual({
      customer_id: { inputFields: [{ namespace: ns, name: 'models.stg_customers', field: 'customer_id', transformations: [{ type: 'DIRECT', subtype: 'IDENTITY' }] }] },
      customer_name: { inputFields: [{ namespace: ns, name: 'models.stg_customers', field: 'name', transformations: [{ type: 'DIRECT', subtype: 'IDENTITY' }] }] },
    });
    // A view: no rows written, no outputStatistics; a plain select from a lake source: column lineage to the lake table.
    expect(names['models.stg_customers'].outputFacets).toBeUndefined();
    const lakeCustomers = { namespace: 'file', name: path.join(wh.dir, 'shop/customers') };
    expect(names['models.stg_customers'].facets.columnLineage.fields).toEqual({
      customer_id: { inputFields: [{ ...lakeCustomers, field: 'id', transformations: [{ type: 'DIRECT', subtype: 'IDENTITY' }] }] },
      name: { inputFields: [{ ...lakeCustomers, field: 'name', transformations: [{ type: 'DIRECT', subtype: 'IDENTITY' }] }] },
    });
    // An expression (a macro) and a WHERE: no column lineage rather than a guess.
    expect(names['models.stg_orders'].facets.columnLineage).toBeUndefined();
    expect(end.inputs.map((d: any) => `${d.namespace} ${d.name}`).sort()).toEqual([`${ns} models.stg_customers`, `file ${path.join(wh.dir, 'shop/customers')}`, `file ${path.join(wh.dir, 'shop/orders')}`].sort());
  });

  it('a failed run gives FAIL with the error message', async () => {
    const r = await run('models.run', { select: 'bad' });
    expect(r.status).toBe('failed');
    expect(r.events.map((e) => e.eventType)).toEqual(['START', 'FAIL']);
    expect(r.events[1].run.facets.errorMessage).toMatchObject({ programmingLanguage: 'JavaScript', message: expect.stringMatching(/model bad ERROR/) });
  });

  it('a flow run: its own START and COMPLETE, and the job it starts names it as parent', async () => {
    const f = await createFlow(db.pool, catalog, { name: 'nightly', nodes: [{ id: 'names', kind: 'models.run', params: { select: 'customer_names' } }] });
    const fr = await startFlowRun(db.pool, f.id, 'user:test');
    const done = await waitFor('the flow run', async () => { const x = await getFlowRun(db.pool, fr.id); return x && x.run.status === 'succeeded' && x; });
    const jobRunId = done.nodes[0].jobRunId!;
    const flowEvents = await eventsOf(fr.id);
    expect(flowEvents.map((e) => e.eventType)).toEqual(['START', 'COMPLETE']);
    expect(flowEvents[0].job).toMatchObject({ name: 'flows.nightly', facets: { jobType: { jobType: 'FLOW' } } });
    const jobEvents = await eventsOf(jobRunId);
    expect(jobEvents.map((e) => e.eventType)).toEqual(['START', 'COMPLETE']);
    for (const e of jobEvents) {
      expect(e.run.facets.parent).toMatchObject({ run: { runId: fr.id }, job: { namespace: 'tributary-test', name: 'flows.nightly' } });
    }
  });

  it('every event received validates against the OpenLineage schema, and each START has exactly one end', async () => {
    await emitter.flush();
    expect(sink.events.length).toBe(12); // six runs: ETL, DQ, build, failed run, flow run and its job
    for (const e of sink.events) expect(validate(e), JSON.stringify(e).slice(0, 300)).toEqual([]);
    const byRun = new Map<string, string[]>();
    for (const e of sink.events) byRun.set(e.run.runId, [...(byRun.get(e.run.runId) ?? []), e.eventType]);
    for (const [id, types] of byRun) {
      expect(types, id).toHaveLength(2);
      expect(types[0], id).toBe('START');
      expect(['COMPLETE', 'FAIL'], id).toContain(types[1]);
    }
  });
});
