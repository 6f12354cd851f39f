import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as arrow from 'apache-arrow';
import { parseEnv } from '../config/env';
import { createPrisma, type Db } from '../db/prisma';
import { createJobRegistry, enqueueJob, getJobRun, startWorker, type WorkerHandle } from '../jobs';
import { lakeJobs } from './jobs';
import { openLake } from '../lake';
import { batchOf, makeWarehouse } from '../lake/test-helpers';
import { silentLogger } from '../log';
import { createTestDatabase, type TestDatabase } from '../testing/pg';

// lake.expire and lake.compact enqueued as POST /api/v1/jobs does (enqueueJob,
// validated against the registered kinds) and run by a real worker.

let db: TestDatabase;
let prisma: Db;
let worker: WorkerHandle | null = null;
const wh = makeWarehouse();
const env = parseEnv({ TRIBUTARY_DATA_DIR: wh.dir, TRIBUTARY_WAREHOUSE: wh.uri } as unknown as NodeJS.ProcessEnv);
const jobs = createJobRegistry(lakeJobs);

async function finished(runId: string) {
  const until = Date.now() + 60_000;
  for (;;) {
    const r = await getJobRun(db.pool, runId);
    if (r && ['succeeded', 'failed', 'cancelled'].includes(r.status)) return r;
    if (Date.now() > until) throw new Error(`job ${runId} did not finish (status ${r?.status})`);
    await new Promise((res) => setTimeout(res, 200));
  }
}

beforeAll(async () => {
  db = await createTestDatabase();
  prisma = createPrisma(db.url, { max: 2 });
  worker = await startWorker({ jobs, pool: db.pool, env, logger: silentLogger, concurrency: 1, heartbeatMs: 300 });
});
afterAll(async () => {
  await worker?.stop();
  await prisma.$disconnect();
  await db.drop();
  wh.remove();
});

describe('lake jobs', () => {
  it('are registered, and a bad payload is refused naming the field', async () => {
    expect(jobs.kinds().map((k) => k.kind)).toEqual(expect.arrayContaining(['lake.expire', 'lake.compact', 'lake.remove_orphans']));
    await expect(enqueueJob({ pool: db.pool, jobs, env }, { kind: 'lake.expire', params: { table: 'nodot' } })).rejects.toMatchObject({ code: 'validation', field: 'params.table' });
    const post = (params: unknown) => enqueueJob({ pool: db.pool, jobs, env }, { kind: 'lake.remove_orphans', params });
    await expect(post({ table: 'jobs.t', olderThan: '3 weeks' })).rejects.toMatchObject({ code: 'validation', field: 'params.olderThan', message: expect.stringMatching(/^params\.olderThan: expected seconds .*3d/) });
    await expect(post({ table: 'jobs.t', olderThan: -5 })).rejects.toMatchObject({ code: 'validation', field: 'params.olderThan' });
    await expect(post({ table: 'jobs.t', dryRun: 'yes' })).rejects.toMatchObject({ code: 'validation', field: 'params.dryRun' });
    await expect(post({ table: 'jobs.t', force: true })).rejects.toMatchObject({ code: 'validation', field: 'params.force' });
  });

  it('compact then expire run in the worker and change the table', async () => {
    const lake = openLake({ pool: db.pool, warehouse: wh.uri });
    const schema = new arrow.Schema([new arrow.Field('b', new arrow.Int32(), false), new arrow.Field('id', new arrow.Int64(), false), new arrow.Field('v', new arrow.Utf8(), true)]);
    const t = await lake.createTable('jobs.t', { schema, partitionBy: ['b'] });
    for (let k = 0; k < 3; k++) await t.append([batchOf(schema, Array.from({ length: 10 }, (_, i) => ({ b: 1, id: BigInt(k * 10 + i), v: `a${k}` })))]);
    await t.merge([batchOf(schema, [{ b: 1, id: 0n, v: 'new' }])], { keys: ['id'] });
    expect((await t.files()).length).toBe(5); // 4 data files + 1 position-delete file

    const c = await enqueueJob({ pool: db.pool, jobs, env }, { kind: 'lake.compact', params: { table: 'jobs.t' }, createdBy: 'test' });
    const cr = await finished(c.runId);
    expect(cr.status).toBe('succeeded');
    expect(cr.result).toMatchObject({ removedFiles: 5, addedFiles: 1 });
    await t.refresh();
    expect((await t.files()).map((f) => f.content)).toEqual(['data']);
    expect(t.snapshots().at(-1)!.summary.operation).toBe('replace');

    const e = await enqueueJob({ pool: db.pool, jobs, env }, { kind: 'lake.expire', params: { table: 'jobs.t', maxSnapshotAgeMs: 1, minSnapshotsToKeep: 1 } });
    const er = await finished(e.runId);
    expect(er.status).toBe('succeeded');
    expect(er.result).toMatchObject({ expiredSnapshots: 4 });
    expect((er.result as { deletedFiles: number }).deletedFiles).toBeGreaterThan(0);
    await t.refresh();
    expect(t.snapshots()).toHaveLength(1);
    let n = 0;
    for await (const b of t.scan()) n += b.numRows;
    expect(n).toBe(30);
    // the files of the expired snapshots are gone: only the compacted data file is left under data/
    const data = fs.readdirSync(new URL(`${t.location}/data`), { recursive: true }).filter((p) => String(p).endsWith('.parquet'));
    expect(data).toHaveLength(1);
  });

  it('lake.remove_orphans: a dry run reports, a run deletes the old orphan and keeps the fresh one', async () => {
    const lake = openLake({ pool: db.pool, warehouse: wh.uri });
    const t = await lake.loadTable('jobs.t');
    const dir = new URL(t.location).pathname;
    const old = `${dir}/data/b=1/never-committed.parquet`, fresh = `${dir}/data/b=1/in-flight.parquet`;
    fs.writeFileSync(old, 'abcdef');
    const tenDays = new Date(Date.now() - 10 * 86_400_000);
    for (const f of fs.readdirSync(dir, { recursive: true })) {
      const p = `${dir}/${String(f)}`;
      if (fs.statSync(p).isFile()) fs.utimesSync(p, tenDays, tenDays);
    }
    fs.writeFileSync(fresh, 'x');
    const dry = await finished((await enqueueJob({ pool: db.pool, jobs, env }, { kind: 'lake.remove_orphans', params: { table: 'jobs.t', dryRun: true } })).runId);
    expect(dry.status).toBe('succeeded');
    expect(dry.result).toMatchObject({ dryRun: true, orphanFiles: 1, orphanBytes: 6, deletedFiles: 0, recentUnreferenced: 1 });
    expect((dry.result as { files: string[] }).files.map((u) => new URL(u).pathname)).toEqual([old]);
    expect(fs.existsSync(old)).toBe(true);
    const run = await finished((await enqueueJob({ pool: db.pool, jobs, env }, { kind: 'lake.remove_orphans', params: { table: 'jobs.t', olderThan: '3d' } })).runId);
    expect(run.result).toMatchObject({ dryRun: false, deletedFiles: 1, deletedBytes: 6 });
    expect(fs.existsSync(old)).toBe(false);
    expect(fs.existsSync(fresh)).toBe(true);
    let n = 0;
    for await (const b of t.scan()) n += b.numRows;
    expect(n).toBe(30);
  });

  it('a missing table fails the run with the lake error', async () => {
    const { runId } = await enqueueJob({ pool: db.pool, jobs, env }, { kind: 'lake.compact', params: { table: 'jobs.nope' } });
    const r = await finished(runId);
    expect(r.status).toBe('failed');
    expect(r.error).toMatch(/lake: table jobs\.nope does not exist/);
  });
});
