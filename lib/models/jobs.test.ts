import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parseEnv } from '../config/env';
import { createJobRegistry } from '../jobs/registry';
import type { JobContext } from '../jobs/types';
import { silentLogger } from '../log';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { ModelsPayload, modelsJobs } from './jobs';

const registry = createJobRegistry(modelsJobs);
const getJobDefinition = (kind: string) => registry.get(kind);
const jobKinds = () => registry.kinds();
import { makeModelsWarehouse, makeShopLake, SHOP_PROJECT } from './test-project';

// The job kinds the worker (and flows) run, called as the worker calls them.

let db: TestDatabase; let wh: ReturnType<typeof makeModelsWarehouse>;
beforeAll(async () => {
  db = await createTestDatabase();
  wh = makeModelsWarehouse();
  await makeShopLake(db.pool, wh.uri);
  for (const [rel, text] of Object.entries({ ...SHOP_PROJECT, 'models/marts/bad.sql': "SELECT nope FROM {{ ref('stg_orders') }}\n", 'models/marts/after_bad.sql': "SELECT * FROM {{ ref('bad') }}\n" })) {
    fs.mkdirSync(path.dirname(path.join(wh.dir, 'models', rel)), { recursive: true });
    fs.writeFileSync(path.join(wh.dir, 'models', rel), text);
  }
});
afterAll(async () => { await db?.drop(); wh?.remove(); });

function ctx(runId: string): JobContext & { seen: [number, number?][] } {
  const seen: [number, number?][] = [];
  return {
    jobs: registry, runId, pool: db.pool, logger: silentLogger, signal: new AbortController().signal, seen,
    env: parseEnv({ DATABASE_URL: db.url, TRIBUTARY_DATA_DIR: wh.dir, TRIBUTARY_WAREHOUSE: wh.uri } as unknown as NodeJS.ProcessEnv),
    progress: (d, t) => seen.push([d, t]),
  };
}

describe('models jobs', () => {
  test('are registered with one payload: select, exclude, fullRefresh, vars, target', () => {
    expect(jobKinds().filter((k) => k.kind.startsWith('models.')).map((k) => `${k.kind}:${k.role}`)).toEqual(['models.run:operator', 'models.test:operator', 'models.build:operator', 'models.seed:operator', 'models.query:viewer']);
    expect(ModelsPayload.parse({ select: 'a +b', exclude: ['c'] })).toEqual({ select: ['a', '+b'], exclude: ['c'], fullRefresh: false, vars: {} });
    expect(ModelsPayload.safeParse({ selct: 'a' }).success).toBe(false);
    expect(ModelsPayload.safeParse({ vars: [] }).success).toBe(false);
  });

  test('models.build succeeds with each model and test in its result; results stored under the run id', async () => {
    const def = getJobDefinition('models.build')!;
    const c = ctx('job-ok');
    const r = await def.run(c, def.payload.parse({ select: '+customer_orders' })) as { ok: boolean; results: { name: string; status: string; rows: number | null; durationMs: number }[] };
    expect(r.ok).toBe(true);
    expect(r.results.find((x) => x.name === 'customer_orders')).toMatchObject({ status: 'success', rows: 3 });
    expect(c.seen.at(-1)).toEqual([r.results.length, r.results.length]);
    const stored = await db.pool.query(`SELECT count(*)::int AS n FROM model_results WHERE run_id = 'job-ok'`);
    expect(stored.rows[0].n).toBe(r.results.length);
  });

  test('a failing model fails the job, naming it; its results are still stored', async () => {
    const def = getJobDefinition('models.run')!;
    await expect(def.run(ctx('job-bad'), def.payload.parse({ select: 'bad+' }))).rejects.toThrow(/models: run: 2 of 2 did not succeed: model bad ERROR .*nope.*, model after_bad SKIPPED/);
    const stored = await db.pool.query(`SELECT node, status, skipped_because FROM model_results WHERE run_id = 'job-bad' ORDER BY id`);
    expect(stored.rows).toEqual([{ node: 'bad', status: 'error', skipped_because: null }, { node: 'after_bad', status: 'skipped', skipped_because: 'bad' }]);
  });

  test('models.query returns the first rows of a read-only SELECT', async () => {
    const def = getJobDefinition('models.query')!;
    const r = await def.run(ctx('job-q'), def.payload.parse({ sql: 'SELECT customer_id FROM models.customer_orders ORDER BY customer_id' }));
    expect(r).toMatchObject({ rows: [{ customer_id: 1 }, { customer_id: 2 }, { customer_id: 3 }], truncated: false, target: 'embedded' });
  });

  test('models.seed loads the selected seeds; ref() to one runs after it', async () => {
    fs.mkdirSync(path.join(wh.dir, 'models', 'seeds'), { recursive: true });
    fs.writeFileSync(path.join(wh.dir, 'models', 'seeds', 'codes.csv'), 'code,label\npaid,Paid\nopen,Open\n');
    fs.writeFileSync(path.join(wh.dir, 'models', 'models', 'marts', 'labelled.sql'), "SELECT o.order_id, c.label FROM {{ ref('stg_orders') }} AS o LEFT JOIN {{ ref('codes') }} AS c ON c.code = o.status\n");
    const def = getJobDefinition('models.seed')!;
    expect(def.payload.safeParse({ fullRefresh: true, selct: 'x' }).success).toBe(false);
    const r = await def.run(ctx('job-seed'), def.payload.parse({ select: 'codes' })) as { ok: boolean; results: { name: string; kind: string; rows: number }[] };
    expect(r).toMatchObject({ ok: true, results: [{ name: 'codes', kind: 'seed', rows: 2 }] });
    const build = getJobDefinition('models.build')!;
    const b = await build.run(ctx('job-seed-build'), build.payload.parse({ select: '+labelled' })) as { results: { name: string; status: string }[] };
    expect(b.results.map((x) => x.name).indexOf('codes')).toBeLessThan(b.results.map((x) => x.name).indexOf('labelled'));
    const q = getJobDefinition('models.query')!;
    expect(await q.run(ctx('job-seed-q'), q.payload.parse({ sql: 'SELECT order_id, label FROM models.labelled ORDER BY order_id' }))).toMatchObject({
      rows: [{ order_id: 10, label: 'Paid' }, { order_id: 11, label: 'Paid' }, { order_id: 12, label: 'Open' }, { order_id: 13, label: 'Paid' }],
    });
  });
});

describe('targets', () => {
  test('a clickhouse connection is a server target; other kinds and unknown names are refused naming target', async () => {
    const { createConnection } = await import('../connections');
    const { resolveTarget } = await import('./service');
    const c = ctx('t');
    const keys = { secret: c.env.TRIBUTARY_SECRET, dataDir: c.env.dataDir };
    await createConnection({ pool: db.pool, keys }, { name: 'ch', kind: 'clickhouse', params: { http_url: 'http://ch.example:8123', user: 'm', database: 'analytics', server_warehouse: '/var/lib/clickhouse/user_files/wh' }, secrets: { password: 'pw' } });
    await createConnection({ pool: db.pool, keys }, { name: 'pg1', kind: 'postgres', params: { host: 'x' } });
    const d = { pool: db.pool, env: c.env, cwd: process.cwd() };
    const t = await resolveTarget(d, 'ch');
    expect(t).toMatchObject({ name: 'ch', database: 'analytics', lake: { mode: 'absolute', warehouse: wh.uri, serverWarehouse: '/var/lib/clickhouse/user_files/wh' } });
    expect(await resolveTarget(d, undefined)).toMatchObject({ name: 'embedded', database: 'models', lake: { mode: 'absolute', within: wh.dir } });
    await expect(resolveTarget(d, 'pg1')).rejects.toMatchObject({ code: 'validation', field: 'target' });
    await expect(resolveTarget(d, 'nope')).rejects.toMatchObject({ code: 'not_found', field: 'target' });
    const { checkConnectionFields } = await import('../api/presenters/connection-kinds');
    expect(checkConnectionFields({ kind: 'clickhouse', params: { user: 'x' } })).toEqual({ field: 'params.http_url', message: 'a ClickHouse connection needs http_url (or host)' });
    expect(checkConnectionFields({ kind: 'clickhouse', params: { http_url: 'ch:8123' } })?.field).toBe('params.http_url');
    expect(checkConnectionFields({ kind: 'clickhouse', params: { http_url: 'https://ch.example:8443' }, secrets: { password: 'x' } })).toBeNull();
  });
});
