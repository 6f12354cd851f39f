/**
 * bench/scale-workers.ts — one ETL run over many workers (the worker part of the scale bench;
 * bench/scale.ts holds the S3 part).
 *
 * 7 Postgres branches × 2 tables × N rows, then the same INITIAL twice, each a `etl.run` job
 * timed from enqueue to its end:
 *  1. one `tributary worker` process, fan-out off (today's single-worker run);
 *  2. three `tributary worker` processes, TRIBUTARY_FANOUT=on (the run's units shared by all three).
 * Prints rows/s of each and the ratio three/one (target ≥ 0.95: on one 2-core host three workers
 * cannot be much faster, the ratio shows the fan-out's overhead).
 *
 *   npx tsx bench/scale-workers.ts [--rows 200000] [--branches 7]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { ensureDatabase, ensureEmbeddedPostgres } from '../lib/db/embedded-postgres';
import { migrate } from '../lib/db/migrate';
import { createPool } from '../lib/db/pool';
import { parseEnv } from '../lib/config/env';
import { createConnection } from '../lib/connections';
import { createJobRegistry, ensureQueue, enqueueJob, getJobRun, listRunUnits } from '../lib/jobs';
import { etlJobs } from '../lib/etl/jobs';

const arg = (name: string, def: string) => { const i = process.argv.indexOf(`--${name}`); return i > 0 ? process.argv[i + 1] : def; };
const ROWS = Number(arg('rows', '200000'));
const BRANCHES = Number(arg('branches', '7'));

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

async function main() {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-scale-workers-'));
  const server = await ensureEmbeddedPostgres(dir, { database: 'postgres' });
  const dbUrl = (n: string) => server.url.replace(/\/postgres$/, `/${n}`);
  const children = new Set<ChildProcess>();
  try {
    await ensureDatabase(server.url, 'app');
    await migrate(dbUrl('app'));
    const pool = createPool(dbUrl('app'), { max: 4 });
    await ensureQueue(pool);
    const dataDir = path.join(dir, 'data');
    await fs.mkdir(dataDir, { recursive: true });
    for (let b = 0; b < BRANCHES; b++) {
      await ensureDatabase(server.url, `branch${b}`);
      await seed(dbUrl(`branch${b}`), b);
      await createConnection({ pool, keys: { dataDir } }, { name: `b${b}`, kind: 'postgres', isBranch: true, branchKey: `b${b}`, secrets: { url: dbUrl(`branch${b}`) } });
    }
    const total = ROWS * 2 * BRANCHES;
    console.log(`seeded ${BRANCHES} branches × 2 tables × ${ROWS} rows = ${total} rows; ${os.cpus().length} cpus`);
    const env = parseEnv({ TRIBUTARY_DATA_DIR: dataDir } as unknown as NodeJS.ProcessEnv);
    const jobs = createJobRegistry(etlJobs);

    const run = async (label: string, workers: number, fanout: 'on' | 'off', ns: string): Promise<number> => {
      const procs = Array.from({ length: workers }, () => {
        const c = spawn(process.execPath, [path.resolve('bin/tributary.mjs'), 'worker'], {
          env: { ...process.env, DATABASE_URL: dbUrl('app'), TRIBUTARY_DATA_DIR: dataDir, TRIBUTARY_FANOUT: fanout, LOG_LEVEL: 'error' }, stdio: 'inherit',
        });
        children.add(c);
        return c;
      });
      // workers up before the clock starts: each has registered with the queue once the check job runs
      await new Promise((r) => setTimeout(r, 4000));
      const t0 = Date.now();
      const { runId } = await enqueueJob({ pool, jobs, env }, { kind: 'etl.run', params: { mode: 'INITIAL', namespace: ns, tablesJson: TABLES, retries: 0, snapshotMaintenance: false }, createdBy: 'bench' });
      let r;
      for (;;) {
        r = await getJobRun(pool, runId, { logLimit: 0 });
        if (r && r.status !== 'queued' && r.status !== 'running') break;
        await new Promise((res) => setTimeout(res, 100));
      }
      const sec = (Date.now() - t0) / 1000;
      if (r.status !== 'succeeded') throw new Error(`${label}: run ${r.status}: ${r.error}`);
      const rows = (r.result as { units: { rows: number }[] }).units.reduce((a, u) => a + u.rows, 0);
      const perWorker = new Map<string, number>();
      for (const u of await listRunUnits(pool, runId)) if (u.status === 'succeeded') perWorker.set(u.workerId!, (perWorker.get(u.workerId!) ?? 0) + 1);
      console.log(`${label}: ${rows} rows in ${sec.toFixed(2)} s = ${Math.round(rows / sec)} rows/s${perWorker.size ? `; units per worker ${[...perWorker.values()].join(', ')}` : ''}`);
      await Promise.all(procs.map((c) => new Promise<void>((res) => { c.once('exit', () => { children.delete(c); res(); }); c.kill('SIGINT'); })));
      return rows / sec;
    };

    const one = await run('one worker (fan-out off)', 1, 'off', 'one');
    const three = await run('three workers (fan-out on)', 3, 'on', 'three');
    console.log(`ratio three workers / one worker: ${(three / one).toFixed(2)} (target ≥ 0.95)`);
    await pool.end();
  } finally {
    for (const c of children) c.kill('SIGKILL');
    await server.stop();
    await fs.rm(dir, { recursive: true, force: true });
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
