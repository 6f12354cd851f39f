/**
 * Scale benchmark (issue #16), two parts in one run:
 *
 *  1. Workers: 7 Postgres branches × 2 tables × N rows, then the same ETL INITIAL twice, each an
 *     `etl.run` job timed from enqueue to its end — on one `tributary worker` process (alone, the
 *     default TRIBUTARY_FANOUT=auto runs it in process), then on three worker processes (auto fans
 *     the run's units out to all three). Prints rows/s of each and the ratio three/one (target
 *     ≥ 0.95: on one 2-core host three workers cannot be much faster; the ratio shows the fan-out's
 *     overhead).
 *  2. S3: the lake's append throughput onto an s3:// warehouse (s3rver on loopback, through the
 *     S3 API) against a file:// warehouse, the same rows in the same run, and the ratio (target ≥ 0.5).
 *
 *   npx tsx bench/scale.ts [--rows 200000] [--branches 7] [--append-rows 1000000] [--batch 100000] [--only workers|s3]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import * as arrow from 'apache-arrow';
import pg from 'pg';
import { ensureDatabase, ensureEmbeddedPostgres } from '../lib/db/embedded-postgres';
import { migrate } from '../lib/db/migrate';
import { createPool } from '../lib/db/pool';
import { parseEnv } from '../lib/config/env';
import { createConnection } from '../lib/connections';
import { createJobRegistry, ensureQueue, enqueueJob, getJobRun, listRunUnits } from '../lib/jobs';
import { etlJobs } from '../lib/etl/jobs';
import { openLake, type Lake } from '../lib/lake';
import { startS3 } from '../lib/lake/test-s3';

const arg = (name: string, def: string) => { const i = process.argv.indexOf(`--${name}`); return i > 0 ? process.argv[i + 1] : def; };
const ROWS = Number(arg('rows', '200000'));
const BRANCHES = Number(arg('branches', '7'));
const APPEND_ROWS = Number(arg('append-rows', '1000000'));
const BATCH = Number(arg('batch', '100000'));
const ONLY = arg('only', '');
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

const TABLES = [
  { table: 'BENCH.VISITS', unique_key: 'VISIT_ID', cdc_column: 'AMEND_LAST_DATE', where_date_column: 'VISIT_DATE', where_operator: '>=', where_value_of_initial_run: '2020-01-01', category: 'transactions' },
  { table: 'BENCH.CHARGES', unique_key: 'CHARGE_ID', cdc_column: 'AMEND_LAST_DATE', where_date_column: 'CHARGE_DATE', where_operator: '>=', where_value_of_initial_run: '2020-01-01', category: 'transactions' },
];

async function seed(url: string, b: number): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  for (const [t, id, d] of [['visits', 'visit_id', 'visit_date'], ['charges', 'charge_id', 'charge_date']]) {
    await c.query(`CREATE SCHEMA IF NOT EXISTS bench;
      CREATE TABLE bench.${t} (${id} int8 PRIMARY KEY, patient_id int4, amount numeric(12,2), code varchar(12), note text, ${d} date, amend_last_date timestamp, score float8)`);
    await c.query(`INSERT INTO bench.${t} SELECT g, (g * 7) % 100000, round((g % 100000) * 1.37, 2), 'C' || (g % 5000),
      CASE WHEN g % 4 = 0 THEN NULL ELSE 'note ' || g || ' branch ${b}' END, date '2020-01-01' + (g % 1800), timestamp '2020-01-01' + g * interval '1 second', g / 7.0
      FROM generate_series(1, ${ROWS}) g`);
    await c.query(`VACUUM ANALYZE bench.${t}`);
  }
  await c.end();
}

const SCHEMA = new arrow.Schema([
  new arrow.Field('BRANCH_ID', new arrow.Int32(), false),
  new arrow.Field('id', new arrow.Int64(), false),
  new arrow.Field('customer', new arrow.Utf8(), true),
  new arrow.Field('amount', new arrow.Float64(), true),
  new arrow.Field('created_at', new arrow.TimestampMicrosecond(), true),
  new arrow.Field('description', new arrow.Utf8(), true),
]);

function* batches(): Generator<arrow.RecordBatch> {
  const per = Math.ceil(APPEND_ROWS / 7);
  for (let b = 0; b < 7; b++) {
    for (let s = 0; s < per; s += BATCH) {
      const n = Math.min(BATCH, per - s);
      const cols = {
        BRANCH_ID: arrow.vectorFromArray(new Int32Array(n).fill(b + 1)),
        id: arrow.vectorFromArray(BigInt64Array.from({ length: n }, (_, i) => BigInt((b + 1) * 1e9 + s + i))),
        customer: arrow.vectorFromArray(Array.from({ length: n }, (_, i) => `customer-${(i * 13 + b) % 50_000}`), new arrow.Utf8()),
        amount: arrow.vectorFromArray(Float64Array.from({ length: n }, (_, i) => ((i * 7919) % 1e6) / 100)),
        created_at: arrow.vectorFromArray(BigInt64Array.from({ length: n }, (_, i) => BigInt(1_700_000_000_000_000 + (s + i) * 1_000_003))),
        description: arrow.vectorFromArray(Array.from({ length: n }, (_, i) => `order ${s + i} of branch ${b}: ${(i * 2654435761) % 1e9}`), new arrow.Utf8()),
      };
      const children = SCHEMA.fields.map((f) => {
        const d = cols[f.name as keyof typeof cols].data[0];
        return f.name === 'created_at' ? arrow.makeData({ type: f.type as arrow.TimestampMicrosecond, length: n, nullCount: 0, data: d.values as BigInt64Array }) : d;
      });
      yield new arrow.RecordBatch(SCHEMA, arrow.makeData({ type: new arrow.Struct(SCHEMA.fields), length: n, nullCount: 0, children }));
    }
  }
}

async function appendRate(lake: Lake, label: string): Promise<number> {
  const t = await lake.createTable(`bench.append_${crypto.randomBytes(3).toString('hex')}`, { schema: SCHEMA, partitionBy: ['BRANCH_ID'] });
  const t0 = performance.now();
  const r = await t.append(batches());
  const s = (performance.now() - t0) / 1000;
  console.log(`${label}: append ${fmt(APPEND_ROWS)} rows in ${s.toFixed(2)} s = ${fmt(APPEND_ROWS / s)} rows/s (${r.addedDataFiles} files)`);
  await lake.dropTable(t.ident, { purge: true });
  return APPEND_ROWS / s;
}

async function workersPart(pool: pg.Pool, dbUrl: (n: string) => string, serverUrl: string, dir: string, children: Set<ChildProcess>): Promise<void> {
  const dataDir = path.join(dir, 'data');
  await fs.mkdir(dataDir, { recursive: true });
  for (let b = 0; b < BRANCHES; b++) {
    await ensureDatabase(serverUrl, `branch${b}`);
    await seed(dbUrl(`branch${b}`), b);
    await createConnection({ pool, keys: { dataDir } }, { name: `b${b}`, kind: 'postgres', isBranch: true, branchKey: `b${b}`, secrets: { url: dbUrl(`branch${b}`) } });
  }
  const total = ROWS * 2 * BRANCHES;
  console.log(`seeded ${BRANCHES} branches × 2 tables × ${ROWS} rows = ${total} rows; ${os.cpus().length} cpus`);
  const env = parseEnv({ TRIBUTARY_DATA_DIR: dataDir } as unknown as NodeJS.ProcessEnv);
  const jobs = createJobRegistry(etlJobs);

  const run = async (label: string, workers: number, ns: string): Promise<number> => {
    const procs = Array.from({ length: workers }, () => {
      const c = spawn(process.execPath, [path.resolve('bin/tributary.mjs'), 'worker'], {
        env: { ...process.env, DATABASE_URL: dbUrl('app'), TRIBUTARY_DATA_DIR: dataDir, LOG_LEVEL: 'error' }, stdio: 'inherit',
      });
      children.add(c);
      return c;
    });
    // workers up before the clock starts (auto fans out to the workers alive as a run starts)
    for (;;) {
      if (Number((await pool.query('select count(*) from workers')).rows[0].count) >= workers) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const etl = async (namespace: string, tables: typeof TABLES) => {
      const { runId } = await enqueueJob({ pool, jobs, env }, { kind: 'etl.run', params: { mode: 'INITIAL', namespace, tablesJson: tables, retries: 0, snapshotMaintenance: false }, createdBy: 'bench' });
      for (;;) {
        const r = await getJobRun(pool, runId, { logLimit: 0 });
        if (r && r.status !== 'queued' && r.status !== 'running') {
          if (r.status !== 'succeeded') throw new Error(`${label}: run ${r.status}: ${r.error}`);
          return { runId, r };
        }
        await new Promise((res) => setTimeout(res, 100));
      }
    };
    // Warm-up (~5% of the rows): workers are long-lived, so each process's JIT and wasm compile is
    // paid before the clock starts, for one worker and for three alike.
    await etl(`${ns}_warm`, TABLES.map((t) => ({ ...t, where_value_of_initial_run: '2024-08-01' })));
    const t0 = Date.now();
    const { runId, r } = await etl(ns, TABLES);
    const sec = (Date.now() - t0) / 1000;
    const rows = (r.result as { units: { rows: number }[] }).units.reduce((a, u) => a + u.rows, 0);
    const perWorker = new Map<string, number>();
    for (const u of await listRunUnits(pool, runId)) if (u.status === 'succeeded') perWorker.set(u.workerId!, (perWorker.get(u.workerId!) ?? 0) + 1);
    console.log(`${label}: ${rows} rows in ${sec.toFixed(2)} s = ${Math.round(rows / sec)} rows/s${perWorker.size ? `; units per worker ${[...perWorker.values()].join(', ')}` : ''}`);
    const t = (await pool.query(`select extract(epoch from max(c.started_at) - min(c.created_at)) wait_max, extract(epoch from avg(c.started_at - c.created_at)) wait_avg,
        extract(epoch from p.finished_at - max(c.finished_at)) tail
      from job_units u join job_runs c on c.id = u.child_run_id join job_runs p on p.id = u.parent_run_id where u.parent_run_id = $1 and c.status = 'succeeded' group by p.finished_at`, [runId])).rows[0];
    if (t) console.log(`  units waited for a worker ${Number(t.wait_avg).toFixed(2)} s on average (last start ${Number(t.wait_max).toFixed(2)} s after the first queued); loads after the last unit took ${Number(t.tail).toFixed(2)} s`);
    await Promise.all(procs.map((c) => new Promise<void>((res) => { c.once('exit', () => { children.delete(c); res(); }); c.kill('SIGINT'); })));
    return rows / sec;
  };

  const one = await run('one worker', 1, 'one');
  const three = await run('three workers', 3, 'three');
  console.log(`ratio three workers / one worker: ${(three / one).toFixed(2)} (target ≥ 0.95)`);
}

async function s3Part(pool: pg.Pool, dir: string): Promise<void> {
  const s3 = await startS3('bench');
  console.log(`s3 part: ${fmt(APPEND_ROWS)} rows, 7 partitions, batches of ${fmt(BATCH)}; s3rver at ${s3.endpoint}`);
  try {
    const file = openLake({ pool, warehouse: path.join(dir, 'wh'), catalogName: 'bench_f' });
    const obj = openLake({ pool, warehouse: s3.warehouse(), s3: s3.settings, catalogName: 'bench_s' });
    // warm-up (parquet-wasm JIT and memory growth) so neither side pays it alone
    await (await file.createTable('bench.warm', { schema: SCHEMA })).append([batches().next().value!]);
    const f = await appendRate(file, 'file://');
    const o = await appendRate(obj, 's3:// (s3rver, loopback)');
    console.log(`ratio s3/file append throughput: ${(o / f).toFixed(2)} (target ≥ 0.5)`);
  } finally {
    await s3.stop();
  }
}

async function main() {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-scale-'));
  const server = await ensureEmbeddedPostgres(dir, { database: 'postgres' });
  const dbUrl = (n: string) => server.url.replace(/\/postgres$/, `/${n}`);
  const children = new Set<ChildProcess>();
  try {
    await ensureDatabase(server.url, 'app');
    await migrate(dbUrl('app'));
    const pool = createPool(dbUrl('app'), { max: 4 });
    await ensureQueue(pool);
    if (ONLY !== 's3') await workersPart(pool, dbUrl, server.url, dir, children);
    if (ONLY !== 'workers') await s3Part(pool, dir);
    await pool.end();
  } finally {
    for (const c of children) c.kill('SIGKILL');
    await server.stop();
    await fs.rm(dir, { recursive: true, force: true });
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
