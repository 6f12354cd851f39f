// /metrics' registry on a real migrated Postgres, a real worker and a real
// lake: after runs (succeeded and failed), ETL units, DQ results and a lake
// commit, the exposition parsed by an independent Prometheus text-format
// parser shows each figure, with bounded labels.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as arrow from 'apache-arrow';
import pg from 'pg';
import { z } from 'zod';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { parseEnv } from '../config/env';
import { silentLogger } from '../log';
import { createJobRegistry, defineJob, enqueueJob, ensureQueue, getJobRun, startWorker, systemJobs, type WorkerHandle } from '../jobs';
import { openLake } from '../lake';
import { SCHEDULER_LOCK_KEY } from '../flows';
import { createMetricsRegistry } from './registry';

const failing = defineJob({
  kind: 'test.fails', description: 'test: always fails',
  payload: z.object({}).strict(),
  async run() { throw new Error('planned failure'); },
});

let db: TestDatabase;
let worker: WorkerHandle;
let warehouse: string;
const jobs = createJobRegistry([...systemJobs, failing]);

type Sample = { labels?: Record<string, string>; value?: string; buckets?: Record<string, string>; count?: string; sum?: string };
type Family = { name: string; type: string; metrics: Sample[] };

let lastText = '';
async function scrape(registry: ReturnType<typeof createMetricsRegistry>): Promise<Map<string, Family>> {
  lastText = await registry.metrics();
  return new Map((parsePrometheusTextFormat(lastText) as Family[]).map((f) => [f.name, f]));
}
/** One sample line's value (the parser merges a labelled histogram's series into one, so histograms are read as lines). */
const line = (sample: string) => {
  const m = lastText.split('\n').find((l) => l.startsWith(`${sample} `));
  return m === undefined ? undefined : Number(m.slice(sample.length + 1));
};
const value = (f: Family | undefined, labels: Record<string, string>) => {
  const m = f?.metrics.find((s) => Object.entries(labels).every(([k, v]) => s.labels?.[k] === v) && Object.keys(s.labels ?? {}).length === Object.keys(labels).length);
  return m?.value === undefined ? undefined : Number(m.value);
};

async function ended(runId: string) {
  for (const until = Date.now() + 60_000; Date.now() < until; await new Promise((r) => setTimeout(r, 100))) {
    const r = await getJobRun(db.pool, runId);
    if (r && ['succeeded', 'failed', 'cancelled'].includes(r.status)) return r;
  }
  throw new Error('run did not end');
}

beforeAll(async () => {
  db = await createTestDatabase();
  await ensureQueue(db.pool);
  warehouse = fs.mkdtempSync(path.join(os.tmpdir(), 'trb-metrics-'));
  const env = parseEnv({ TRIBUTARY_DATA_DIR: warehouse, DATABASE_URL: db.url } as unknown as NodeJS.ProcessEnv);
  worker = await startWorker({ jobs, pool: db.pool, env, logger: silentLogger, heartbeatMs: 300, pollMs: 200 });
});
afterAll(async () => {
  await worker?.stop({ timeoutMs: 10_000 });
  await db.drop();
  fs.rmSync(warehouse, { recursive: true, force: true });
});

describe('GET /metrics figures', () => {
  it('counts runs, units, DQ outcomes, lake tables, workers and scheduler leadership', async () => {
    const env = parseEnv({ TRIBUTARY_DATA_DIR: warehouse } as unknown as NodeJS.ProcessEnv);
    const lake = openLake({ pool: db.pool, warehouse: env.warehouse });
    const registry = createMetricsRegistry({ pool: db.pool, lake, schedulerLockKey: SCHEDULER_LOCK_KEY });

    const before = await scrape(registry);
    expect(value(before.get('tributary_scheduler_leader'), {})).toBe(0);
    expect(before.get('tributary_job_runs_total')?.metrics ?? []).toEqual([]);

    for (const kind of ['system.check', 'system.check', 'test.fails']) await ended((await enqueueJob({ pool: db.pool, jobs, env }, { kind, params: {} })).runId);

    // ETL units and DQ results as the engines record them.
    await db.pool.query(`insert into etl_meta.etl_run_log (pipeline_run_id, namespace, table_name, branch_id, mode, status, row_count, rows_deleted, started_at, finished_at, duration_ms)
      values ('r1', 'etl', 'CUSTOMERS', 'B1', 'INITIAL', 'SUCCESS', 120, 0, now(), now(), 2000),
             ('r2', 'etl', 'CUSTOMERS', 'B1', 'INCREMENTAL', 'SUCCESS', 5, 2, now(), now(), 300),
             ('r2', 'etl', 'CUSTOMERS', 'B2', 'INCREMENTAL', 'FAILED', 0, 0, now(), now(), 100),
             ('r3', 'probe', 'COUNTRY', 'B1', 'INITIAL', 'SUCCESS', 7, 0, now(), now(), 50)`);
    await db.pool.query(`insert into etl_meta.etl_dq_results (pipeline_run_id, table_name, branch_id, status, checked_at)
      values ('dq-1', 'CUSTOMERS', 'B1', 'MISMATCH', now() - interval '1 hour'), ('dq-2', 'CUSTOMERS', 'B1', 'OK', now()), ('dq-2', 'CUSTOMERS', 'B2', 'ERROR', now())`);

    const schema = new arrow.Schema([new arrow.Field('ID', new arrow.Int32(), false), new arrow.Field('BRANCH_ID', new arrow.Utf8(), false)]);
    const t = await lake.createTable('etl.customers', { schema, partitionBy: ['BRANCH_ID'] });
    const ids = arrow.makeVector(Int32Array.from([1, 2, 3]));
    const branches = arrow.vectorFromArray(['B1', 'B1', 'B2'], new arrow.Utf8());
    await t.append([new arrow.RecordBatch(schema, arrow.makeData({ type: new arrow.Struct(schema.fields), length: 3, nullCount: 0, children: [ids.data[0], branches.data[0]] }))]);

    // A scheduler holding leadership, as lib/flows/scheduler.ts takes it.
    const leader = new pg.Client({ connectionString: db.url });
    await leader.connect();
    await leader.query('select pg_advisory_lock($1)', [SCHEDULER_LOCK_KEY]);
    try {
      const m = await scrape(registry);
      expect(value(m.get('tributary_job_runs_total'), { kind: 'system.check', status: 'succeeded' })).toBe(2);
      expect(value(m.get('tributary_job_runs_total'), { kind: 'test.fails', status: 'failed' })).toBe(1);
      expect(m.get('tributary_job_runs_total')?.type).toBe('COUNTER');
      expect(m.get('tributary_job_run_duration_seconds')?.type).toBe('HISTOGRAM');
      expect(line('tributary_job_run_duration_seconds_count{kind="system.check"}')).toBe(2);
      expect(line('tributary_job_run_duration_seconds_bucket{kind="system.check",le="+Inf"}')).toBe(2);
      expect(line('tributary_job_run_duration_seconds_bucket{kind="system.check",le="86400"}')).toBe(2);
      expect(line('tributary_job_run_duration_seconds_count{kind="test.fails"}')).toBe(1);

      expect(value(m.get('tributary_etl_rows_loaded_total'), { table: 'CUSTOMERS', branch: 'B1' })).toBe(125);
      expect(value(m.get('tributary_etl_rows_loaded_total'), { table: 'probe.COUNTRY', branch: 'B1' })).toBe(7);
      expect(value(m.get('tributary_etl_rows_deleted_total'), { table: 'CUSTOMERS', branch: 'B1' })).toBe(2);
      expect(value(m.get('tributary_etl_units_total'), { table: 'CUSTOMERS', status: 'FAILED' })).toBe(1);
      expect(line('tributary_etl_unit_duration_seconds_count{table="CUSTOMERS"}')).toBe(3);
      expect(line('tributary_etl_unit_duration_seconds_sum{table="CUSTOMERS"}')).toBeCloseTo(2.4, 5);
      expect(line('tributary_etl_unit_duration_seconds_bucket{table="CUSTOMERS",le="0.25"}')).toBe(1); // 0.1 s
      expect(line('tributary_etl_unit_duration_seconds_bucket{table="CUSTOMERS",le="1"}')).toBe(2); // + 0.3 s
      expect(line('tributary_etl_unit_duration_seconds_bucket{table="CUSTOMERS",le="5"}')).toBe(3); // + 2 s

      expect(value(m.get('tributary_dq_checks_total'), { table: 'CUSTOMERS', branch: 'B1', status: 'MISMATCH' })).toBe(1);
      expect(value(m.get('tributary_dq_last_ok'), { table: 'CUSTOMERS', branch: 'B1' })).toBe(1);
      expect(value(m.get('tributary_dq_last_ok'), { table: 'CUSTOMERS', branch: 'B2' })).toBe(0);

      expect(value(m.get('tributary_lake_rows'), { table: 'etl.customers' })).toBe(3);
      expect(value(m.get('tributary_lake_snapshots'), { table: 'etl.customers' })).toBe(1);
      expect(value(m.get('tributary_lake_data_files'), { table: 'etl.customers' })).toBe(2); // one per branch partition
      expect(value(m.get('tributary_lake_bytes'), { table: 'etl.customers' })).toBeGreaterThan(0);

      expect(value(m.get('tributary_scheduler_leader'), {})).toBe(1);
      expect(value(m.get('tributary_workers'), { state: 'alive' })).toBe(1);
      expect(value(m.get('tributary_job_queue_depth'), { kind: 'system.check' })).toBeUndefined(); // nothing queued
      expect(m.get('process_cpu_user_seconds_total')).toBeDefined(); // Node's own
      // Bounded labels: no run id, worker id or message anywhere.
      for (const f of m.values()) for (const s of f.metrics) for (const v of Object.values(s.labels ?? {})) expect(v).not.toMatch(/^[0-9a-f]{8}-|vm:|planned failure/);
    } finally {
      await leader.end();
    }
  });
});
