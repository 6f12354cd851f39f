// The transports as a run sees them: an endpoint that refuses connections costs
// no run anything and is logged once; the file transport writes one JSON event
// per line. Plus the pure parts: dataset naming and the vendored-schema check.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEnv } from '../config/env';
import { createJobRegistry, defineJob, enqueueJob, ensureQueue, getJobRun, startWorker } from '../jobs';
import { createLogger, silentLogger, type LogRecord } from '../log';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { openLineageValidator } from '../testing/openlineage';
import { plainColumnLineage } from '../models/lineage';
import { buildRunEvent } from './event';
import { createLineageEmitter } from './emitter';
import { lineageFromEnv } from './from-env';
import { locationDataset, sourceDataset } from './naming';
import { fileTransport, httpTransport } from './transport';
import type { LineageEmitter } from './types';
import { closedPort } from '../testing/closed-port';

/** A job kind that declares lineage and reports one dataset, as the engines do. */
const copyJob = defineJob({
  kind: 'test.copy', description: 'test: copies nothing, reports lineage',
  payload: z.object({}).strict(),
  lineage: { jobType: 'ETL' },
  async run(ctx) {
    ctx.reportLineage?.({ inputs: [{ namespace: 'postgres://db:5432', name: 'shop.public.orders' }], outputs: [{ namespace: 'file', name: '/lake/etl/orders', fields: [{ name: 'id', type: 'long' }], rowCount: 7 }] });
    return { ok: true };
  },
});
const jobs = createJobRegistry([copyJob]);
const validate = openLineageValidator();
let db: TestDatabase;
let dir: string;

beforeAll(async () => {
  db = await createTestDatabase();
  await ensureQueue(db.pool);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trb-ol-'));
});
afterAll(async () => { await db?.drop(); fs.rmSync(dir, { recursive: true, force: true }); });

/** Run `n` test.copy jobs through a real worker handing events to `lineage`; their end states. */
async function runJobs(lineage: LineageEmitter, n: number): Promise<string[]> {
  const env = parseEnv({ TRIBUTARY_DATA_DIR: dir } as unknown as NodeJS.ProcessEnv);
  const worker = await startWorker({ jobs, pool: db.pool, env, logger: silentLogger, heartbeatMs: 300, pollMs: 200, lineage });
  try {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) ids.push((await enqueueJob({ pool: db.pool, jobs, env }, { kind: 'test.copy', params: {} })).runId);
    const out: string[] = [];
    for (const id of ids) {
      for (const until = Date.now() + 30_000; ; await new Promise((r) => setTimeout(r, 50))) {
        const r = await getJobRun(db.pool, id);
        if (r && r.status !== 'queued' && r.status !== 'running') { out.push(r.status); break; }
        if (Date.now() > until) throw new Error(`run ${id} did not end`);
      }
    }
    return out;
  } finally { await worker.stop({ timeoutMs: 5000 }); }
}

describe('OpenLineage transports', () => {
  it('endpoint down (connection refused): every run succeeds, one warning for the outage', async () => {
    const logs: LogRecord[] = [];
    const emitter = createLineageEmitter({ transport: httpTransport({ url: `http://127.0.0.1:${await closedPort()}` }), logger: createLogger((r) => logs.push(r)) });
    expect(await runJobs(emitter, 3)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    await emitter.flush();
    const warnings = logs.filter((l) => l.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0].message).toMatch(/^openlineage: cannot send events to http:\/\/127\.0\.0\.1:\d+\/api\/v1\/lineage/);
  });

  it('the file transport appends one JSON event per line, each valid', async () => {
    const file = path.join(dir, 'events.ndjson');
    const emitter = lineageFromEnv(parseEnv({ OPENLINEAGE__TRANSPORT__TYPE: 'file', OPENLINEAGE__TRANSPORT__LOG_FILE_PATH: file } as unknown as NodeJS.ProcessEnv), silentLogger)!;
    expect(await runJobs(emitter, 2)).toEqual(['succeeded', 'succeeded']);
    await emitter.flush();
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(4);
    const events = lines.map((l) => JSON.parse(l));
    for (const e of events) expect(validate(e)).toEqual([]);
    const byRun = new Map<string, string[]>();
    for (const e of events) byRun.set(e.run.runId, [...(byRun.get(e.run.runId) ?? []), e.eventType]);
    expect([...byRun.values()]).toEqual([['START', 'COMPLETE'], ['START', 'COMPLETE']]);
    const complete = events.find((e) => e.eventType === 'COMPLETE');
    expect(complete.job).toMatchObject({ namespace: 'tributary', name: 'test.copy' });
    expect(complete.outputs[0]).toMatchObject({ namespace: 'file', name: '/lake/etl/orders', outputFacets: { outputStatistics: { rowCount: 7 } } });
  });

  it('no transport configured, or OPENLINEAGE_DISABLED=true: no emitter', () => {
    expect(lineageFromEnv(parseEnv({} as NodeJS.ProcessEnv), silentLogger)).toBeNull();
    expect(lineageFromEnv(parseEnv({ OPENLINEAGE_URL: 'http://x:5000', OPENLINEAGE_DISABLED: 'true' } as unknown as NodeJS.ProcessEnv), silentLogger)).toBeNull();
    expect(() => parseEnv({ OPENLINEAGE_URL: 'ftp://x' } as unknown as NodeJS.ProcessEnv)).toThrow(/OPENLINEAGE_URL/);
  });
});

describe('the vendored schema check', () => {
  it('rejects an event without a run id and an errorMessage facet without its language', () => {
    const good = buildRunEvent({ eventType: 'FAIL', runId: '0b6f3c1e-9a57-4a84-9c55-0e7f3f3c1a11', jobName: 'etl.run', jobType: 'ETL', error: 'boom' }, 'tributary');
    expect(validate(good)).toEqual([]);
    const noRun = { ...good, run: { facets: {} } };
    expect(validate(noRun).join('\n')).toMatch(/runId/);
    const badFacet = structuredClone(good) as any;
    delete badFacet.run.facets.errorMessage.programmingLanguage;
    expect(validate(badFacet).join('\n')).toMatch(/programmingLanguage/);
  });
});

describe('dataset naming (OpenLineage naming spec)', () => {
  it('PostgreSQL: host:port namespace, database.schema.table, no credentials, unquoted names folded to lower case', () => {
    expect(sourceDataset({ kind: 'postgres', connectionString: 'postgres://app:s3cret@db.example:6432/shop?sslmode=require' }, 'OASIS.CUSTOMERS'))
      .toEqual({ namespace: 'postgres://db.example:6432', name: 'shop.oasis.customers' });
    expect(sourceDataset({ kind: 'postgres', host: 'pg', database: 'shop' }, 'orders')).toEqual({ namespace: 'postgres://pg:5432', name: 'shop.public.orders' });
    expect(sourceDataset({ kind: 'postgres', host: 'pg', database: 'shop' }, '"Mixed"."Case"')).toEqual({ namespace: 'postgres://pg:5432', name: 'shop.Mixed.Case' });
    expect(sourceDataset({ kind: 'postgres', host: 'pg', database: 'shop' }, '(SELECT 1 FROM a)')).toBeNull();
  });
  it('Oracle: host:port namespace, serviceName.schema.table, from params or an EZConnect dsn', () => {
    expect(sourceDataset({ kind: 'oracle', host: 'ora', port: 1522, serviceName: 'ORCL' }, 'oasis.customers')).toEqual({ namespace: 'oracle://ora:1522', name: 'ORCL.OASIS.CUSTOMERS' });
    expect(sourceDataset({ kind: 'oracle', dsn: 'ora.example/XEPDB1' }, 'OASIS.ORDERS')).toEqual({ namespace: 'oracle://ora.example:1521', name: 'XEPDB1.OASIS.ORDERS' });
  });
  it('lake tables by location: file and s3', () => {
    expect(locationDataset('file:///data/warehouse/etl/orders')).toEqual({ namespace: 'file', name: '/data/warehouse/etl/orders' });
    expect(locationDataset('s3://lake-bucket/prefix/etl/orders')).toEqual({ namespace: 's3://lake-bucket', name: 'prefix/etl/orders' });
  });
  it('column lineage only for a plain select from one ref or source', () => {
    expect(plainColumnLineage("{{ config(materialized='table') }}\nSELECT id, name AS customer_name FROM {{ ref('stg') }}\n")).toEqual({ from: { ref: 'stg' }, columns: { id: 'id', customer_name: 'name' } });
    expect(plainColumnLineage("select id from {{ source('lake', 'shop.orders') }}")).toEqual({ from: { source: 'shop.orders' }, columns: { id: 'id' } });
    expect(plainColumnLineage("SELECT id, amount * 2 AS twice FROM {{ ref('stg') }}")).toBeNull();
    expect(plainColumnLineage("SELECT * FROM {{ ref('stg') }}")).toBeNull();
    expect(plainColumnLineage("SELECT id FROM {{ ref('stg') }} WHERE id > 1")).toBeNull();
  });
});
