// POST /api/v1/jobs with the lake's job kinds (lake.compact, lake.expire, lake.remove_orphans), run by
// a real worker against a real migrated Postgres and warehouse folder; a lake
// failure (a table that does not exist) fails the run with the lake's message.
import * as arrow from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { openLake } from '@/lib/lake';
import * as jobs from './jobs/route';
import * as job from './jobs/[id]/route';
import { callRoute, type RouteHandler } from './test-call';
import { serverDeps } from '@/app/_server/deps';
import { useRouteServer } from './test-server';

const fx = useRouteServer({ name: 'lake-jobs', queue: true, roles: ['operator'], seed: async () => { await fx.startWorker(); } });

const call = (handler: RouteHandler, method: string, url: string, opts: { body?: unknown; params?: Record<string, string> } = {}) => callRoute(handler, method, url, { ...opts, token: fx.tok.operator });

async function start(kind: string, params: unknown) {
  const r = await call(jobs.POST, 'POST', '/api/v1/jobs', { body: { kind, params } });
  expect(r.status).toBe(202);
  let run = r.body;
  for (let i = 0; i < 600 && !['succeeded', 'failed', 'cancelled'].includes(run.status); i++) {
    await new Promise((res) => setTimeout(res, 100));
    run = (await call(job.GET, 'GET', `/api/v1/jobs/${r.body.id}`, { params: { id: r.body.id } })).body;
  }
  return run;
}

describe('lake jobs through POST /api/v1/jobs', () => {
  it('a bad payload is a 400 naming the field', async () => {
    const r = await call(jobs.POST, 'POST', '/api/v1/jobs', { body: { kind: 'lake.compact', params: { table: 'nodot' } } });
    expect(r.status).toBe(400);
    expect(r.body.error.field).toBe('params.table');
    const age = await call(jobs.POST, 'POST', '/api/v1/jobs', { body: { kind: 'lake.remove_orphans', params: { table: 'ops.t', olderThan: 'three days' } } });
    expect(age.status).toBe(400);
    expect(age.body.error).toMatchObject({ code: 'validation', field: 'params.olderThan' });
  });

  it('lake.compact then lake.expire run to success and change the table', async () => {
    const { pool, env } = serverDeps();
    const lake = openLake({ pool, warehouse: env.warehouse });
    const schema = new arrow.Schema([new arrow.Field('b', new arrow.Int32(), false), new arrow.Field('id', new arrow.Int64(), false)]);
    const t = await lake.createTable('ops.t', { schema, partitionBy: ['b'] });
    for (let k = 0; k < 3; k++) await t.append([arrow.tableFromArrays({ b: Int32Array.from([1, 1]), id: BigInt64Array.from([BigInt(2 * k), BigInt(2 * k + 1)]) }).batches[0]]);
    expect((await t.files()).length).toBe(3);

    const c = await start('lake.compact', { table: 'ops.t' });
    expect(c.status).toBe('succeeded');
    expect(c.result).toMatchObject({ removedFiles: 3, addedFiles: 1 });
    expect(c.progress).toEqual({ done: 1, total: 1 });
    await t.refresh();
    expect((await t.files()).length).toBe(1);

    const e = await start('lake.expire', { table: 'ops.t', maxSnapshotAgeMs: 1 });
    expect(e.status).toBe('succeeded');
    expect(e.result).toMatchObject({ expiredSnapshots: 3 });
    await t.refresh();
    expect(t.snapshots()).toHaveLength(1);
  });

  it('a table that does not exist fails the run with the lake message', async () => {
    const r = await start('lake.expire', { table: 'ops.nope' });
    expect(r.status).toBe('failed');
    expect(r.error).toMatch(/lake: table ops\.nope does not exist/);
  });
});
