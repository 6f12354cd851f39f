import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as arrow from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parseEnv, type Env } from '../config/env';
import { openLake, type Lake } from '../lake';
import { batchOf } from '../lake/test-helpers';
import { startS3, type TestS3 } from '../lake/test-s3';
import { silentLogger } from '../log';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { compileModels, queryModels, runModelsCommand, type ModelsDeps } from './service';
import { writeProject } from './test-project';

// The SQL models on an s3:// warehouse (s3rver), set up the way a user does it:
// TRIBUTARY_WAREHOUSE=s3://… plus AWS_* / TRIBUTARY_S3_* through parseEnv, lake tables
// written by the lake library into the bucket, then runModelsCommand — what the
// `models.build` job and `tributary models build` call — on the embedded ClickHouse
// (chdb, in this process; the S3 server runs in a child process, see test-s3.ts).

const KEY = 'S3RVER';
let s3: TestS3; let db: TestDatabase; let tmp: string; let env: Env; let lake: Lake;
let proj: ReturnType<typeof writeProject>;

const ORDERS = new arrow.Schema([
  new arrow.Field('BRANCH_ID', new arrow.Utf8(), false),
  new arrow.Field('ORDER_ID', new arrow.Int64(), false),
  new arrow.Field('AMOUNT', new arrow.Float64(), true),
]);
/** Orders of a branch; amounts are multiples of 0.5, so sums are exact in a double. */
const orders = (branch: string, from: number, n: number) => Array.from({ length: n }, (_, k) => ({ BRANCH_ID: branch, ORDER_ID: BigInt(from + k), AMOUNT: ((from + k) % 17) * 0.5 }));
const written: { BRANCH_ID: string; ORDER_ID: bigint; AMOUNT: number }[] = [];

/** Orders and sum of AMOUNT per branch, from the rows written to the lake. */
function expected(): { BRANCH_ID: string; orders: number; total: number }[] {
  const m = new Map<string, { orders: number; total: number }>();
  for (const r of written) { const x = m.get(r.BRANCH_ID) ?? { orders: 0, total: 0 }; x.orders++; x.total += r.AMOUNT; m.set(r.BRANCH_ID, x); }
  return [...m].sort(([a], [b]) => a.localeCompare(b)).map(([BRANCH_ID, x]) => ({ BRANCH_ID, ...x }));
}

const PROJECT: Record<string, string> = {
  'dbt_project.yml': 'name: shop_s3\n',
  'models/stg_orders.sql': "{{ config(materialized='view') }}\nSELECT BRANCH_ID, ORDER_ID, AMOUNT FROM {{ source('shop', 'orders') }}\n",
  'models/branch_totals.sql': "{{ config(materialized='table', order_by='BRANCH_ID') }}\nSELECT BRANCH_ID, count() AS orders, sum(AMOUNT) AS total\nFROM {{ source('shop', 'orders') }}\nGROUP BY BRANCH_ID\n",
  'models/branch_share.sql': "{{ config(materialized='table', order_by='BRANCH_ID') }}\nSELECT BRANCH_ID, orders, total, total / (SELECT sum(total) FROM {{ ref('branch_totals') }}) AS share\nFROM {{ ref('branch_totals') }}\n",
  'models/schema.yml': 'version: 2\nmodels:\n  - name: branch_totals\n    columns:\n      - name: BRANCH_ID\n        tests: [unique, not_null]\n',
  // singular test: the totals agree with the view over the same lake table
  'tests/totals_match_orders.sql': "SELECT t.BRANCH_ID, t.orders, s.n FROM {{ ref('branch_totals') }} t\nLEFT JOIN (SELECT BRANCH_ID, count() AS n FROM {{ ref('stg_orders') }} GROUP BY BRANCH_ID) s ON s.BRANCH_ID = t.BRANCH_ID\nWHERE s.n != t.orders\n",
};

beforeAll(async () => {
  s3 = await startS3();
  db = await createTestDatabase();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'models-s3-'));
  env = parseEnv({
    TRIBUTARY_DATA_DIR: path.join(tmp, 'data'), TRIBUTARY_WAREHOUSE: s3.warehouse(),
    AWS_ACCESS_KEY_ID: KEY, AWS_SECRET_ACCESS_KEY: KEY, AWS_REGION: 'us-east-1', TRIBUTARY_S3_ENDPOINT: s3.endpoint, TRIBUTARY_S3_FORCE_PATH_STYLE: 'true',
  } as unknown as NodeJS.ProcessEnv);
  lake = openLake({ pool: db.pool, warehouse: env.warehouse, s3: env.s3 });
  await lake.createNamespace('shop');
  const t = await lake.createTable('shop.orders', { schema: ORDERS, partitionBy: ['BRANCH_ID'] });
  const rows = [...orders('b0', 1, 40), ...orders('b1', 1, 25), ...orders('b2', 100, 7)];
  await t.append([batchOf(ORDERS, rows)]);
  written.push(...rows);
  proj = writeProject(PROJECT);
});

afterAll(async () => {
  await db?.drop();
  await s3?.stop();
  proj?.remove();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

const deps = (): ModelsDeps => ({ pool: db.pool, env, logger: silentLogger });
const build = (runId: string) => runModelsCommand(deps(), { command: 'build', project: proj.root, runId });
const query = async (sql: string) => (await queryModels(deps(), { sql })).rows;

describe('models on an s3:// warehouse', () => {
  test('build: source() reads the bucket through icebergS3, ref() builds on it, the tests pass, the results equal the lake rows', async () => {
    const t = await lake.loadTable('shop.orders');
    expect(t.location.startsWith('s3://')).toBe(true);
    const s = await build('run-s3-1');
    expect(s.results.filter((x) => x.status !== 'success' && x.status !== 'pass').map((x) => `${x.name} ${x.status} ${x.error ?? ''}`)).toEqual([]);
    expect(s.ok).toBe(true);
    expect(s.results.map((x) => `${x.kind} ${x.name}`).sort()).toEqual([
      'model branch_share', 'model branch_totals', 'model stg_orders',
      'test not_null_branch_totals_BRANCH_ID', 'test totals_match_orders', 'test unique_branch_totals_BRANCH_ID',
    ]);
    // at the endpoint, the keys in a named collection: the SQL results and previews show holds none
    expect(s.results.find((x) => x.name === 'branch_totals')?.sql).toMatch(/icebergS3\(tributary_lake_s3, url = 'http:\/\/127\.0\.0\.1:\d+\/lake\/wh-[0-9a-f]+\/shop\/orders\/'\)/);
    const sqls = (await db.pool.query(`SELECT sql FROM model_results WHERE run_id = 'run-s3-1' AND sql IS NOT NULL`)).rows.map((r) => String(r.sql));
    expect(sqls.length).toBeGreaterThan(3);
    expect(sqls.filter((x) => x.includes(KEY))).toEqual([]);

    const want = expected();
    expect(want.map((x) => x.BRANCH_ID)).toEqual(['b0', 'b1', 'b2']);
    expect(await query('SELECT BRANCH_ID, toUInt32(orders) AS orders, total FROM models.branch_totals ORDER BY BRANCH_ID')).toEqual(want);
    const all = want.reduce((n, x) => n + x.total, 0);
    const share = await query('SELECT BRANCH_ID, toUInt32(orders) AS orders, total, share FROM models.branch_share ORDER BY BRANCH_ID');
    expect(share.map((x) => ({ ...x, share: Number((x.share as number).toFixed(9)) }))).toEqual(want.map((x) => ({ ...x, share: Number((x.total / all).toFixed(9)) })));
    // the view reads the bucket at query time
    expect(await query('SELECT toUInt32(count()) AS n, sum(AMOUNT) AS s FROM models.stg_orders')).toEqual([{ n: written.length, s: all }]);
    // every outcome recorded
    const stored = (await db.pool.query(`SELECT node, status FROM model_results WHERE run_id = 'run-s3-1' ORDER BY node`)).rows;
    expect(stored.map((r) => `${r.node} ${r.status}`)).toEqual([
      'branch_share success', 'branch_totals success', 'not_null_branch_totals_BRANCH_ID pass', 'stg_orders success', 'totals_match_orders pass', 'unique_branch_totals_BRANCH_ID pass',
    ]);
  });

  test('while a job uses them the keys sit in a file only the owner reads (0600, folder 0700); it is removed when the job ends', async () => {
    const chdbDir = path.join(env.dataDir, 'chdb');
    const keyFiles = () => fs.readdirSync(chdbDir, { recursive: true }).map(String).filter((f) => f.includes('tributary_lake_s3'));
    const seen: string[] = [];
    const s = await runModelsCommand(deps(), {
      command: 'run', project: proj.root, runId: 'run-s3-modes',
      onResult: () => {
        for (const f of keyFiles()) {
          const full = path.join(chdbDir, f);
          const text = fs.readFileSync(full, 'utf8');
          seen.push(`${f} ${(fs.statSync(full).mode & 0o777).toString(8)} dir ${(fs.statSync(path.dirname(full)).mode & 0o777).toString(8)} key ${text.includes(KEY)}`);
        }
      },
    });
    expect(s.ok).toBe(true);
    expect(seen.length).toBeGreaterThan(0);
    expect([...new Set(seen)]).toEqual([expect.stringMatching(/tributary_lake_s3\.sql 600 dir 700 key true$/)]);
    expect(keyFiles()).toEqual([]);
  });

  test('a new lake snapshot on s3 is what the next build reads; compile renders icebergS3 at the endpoint', async () => {
    const t = await lake.loadTable('shop.orders');
    const more = [...orders('b1', 1000, 9), ...orders('b3', 1, 4)];
    await t.append([batchOf(ORDERS, more)]);
    written.push(...more);
    const s = await build('run-s3-2');
    expect(s.ok).toBe(true);
    expect(await query('SELECT BRANCH_ID, toUInt32(orders) AS orders, total FROM models.branch_totals ORDER BY BRANCH_ID')).toEqual(expected());
    const c = await compileModels(deps(), { project: proj.root, select: ['branch_totals'], write: false });
    const node = c.nodes.find((n) => n.name === 'branch_totals');
    expect(node?.sql).toMatch(new RegExp(`FROM icebergS3\\(tributary_lake_s3, url = '${s3.endpoint.replace(/[.]/g, '\\.')}/lake/wh-[0-9a-f]+/shop/orders/'\\)`));
    expect(node?.sql).not.toContain(KEY);
    // the keys' named collection lives on disk only while a session uses it
    const kept = fs.readdirSync(path.join(env.dataDir, 'chdb'), { recursive: true }).map(String).filter((f) => f.includes('tributary_lake_s3'));
    expect(kept).toEqual([]);
  });

  test('as a new user: `tributary models build` (a process, the settings from its environment) writes the starter over the s3 table and builds it', async () => {
    const r = await new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
      const c = spawn(process.execPath, ['bin/tributary.mjs', 'models', 'build', '--json'], {
        env: {
          ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'error', TRIBUTARY_DATA_DIR: env.dataDir, TRIBUTARY_WAREHOUSE: env.warehouse,
          AWS_ACCESS_KEY_ID: KEY, AWS_SECRET_ACCESS_KEY: KEY, AWS_REGION: 'us-east-1', TRIBUTARY_S3_ENDPOINT: s3.endpoint, TRIBUTARY_S3_FORCE_PATH_STYLE: 'true',
        },
      });
      let out = ''; let err = '';
      c.stdout.on('data', (d) => (out += d)); c.stderr.on('data', (d) => (err += d));
      c.on('close', (code) => resolve({ code, out, err }));
    });
    expect(r.err).not.toMatch(/^error:/m);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).results.map((x: { name: string; status: string }) => `${x.name} ${x.status}`)).toEqual(['stg_orders success', 'not_null_stg_orders_BRANCH_ID pass']);
    expect(await query('SELECT toUInt32(count()) AS n FROM models.stg_orders')).toEqual([{ n: written.length }]);
  });
});
