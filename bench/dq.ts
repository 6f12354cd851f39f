/**
 * Reconciler benchmark (issue 5): a table of N rows (default 2M) × 2 branches
 * loaded into the lake by the ETL engine, then
 * - the full row-hash check per side (rows/s) against raw binary
 *   `COPY (SELECT …) TO STDOUT` of the same rows in the same run (ratio),
 * - peak RSS of this process,
 * - the time to localise 10 changed rows to their keys.
 *
 *   npx tsx bench/dq.ts [--rows 2000000] [--keep]
 * Uses $DATABASE_URL when set, else an embedded PostgreSQL in a temp folder.
 */
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import pg from 'pg';
import { ensureDatabase, ensureEmbeddedPostgres, migrate } from '../lib/db';
import { silentLogger } from '../lib/log';
import { openLake } from '../lib/lake';
import { copyOut, createPostgresSource } from '../lib/sources';
import { DEFAULT_SETTINGS, lakeTarget, parseTablesConfig, runEtl } from '../lib/etl';
import { runDq } from '../lib/dq/run';
import { openPostgresDqSource, type DqBranch } from '../lib/dq/source';
import { planUnit, lakeSideOf } from '../lib/dq/plan';
import { fromClause } from '../lib/reconcile/from-clause';
import { HELPER_DATE } from '../lib/sources';
import { getWatermarks } from '../lib/db';

const arg = (name: string, def: string) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : def; };
const ROWS = Number(arg('--rows', '2000000'));
const BRANCHES = 2;

let peakRss = 0;
const sampler = setInterval(() => { peakRss = Math.max(peakRss, process.memoryUsage().rss); }, 20);
const mib = (b: number) => `${(b / 1048576).toFixed(0)} MiB`;
const rate = (n: number, ms: number) => `${Math.round(n / (ms / 1000)).toLocaleString('en-US')} rows/s`;

const LOAD_ONLY = process.argv.includes('--load-only');

async function main() {
  const tmp = process.env.BENCH_DQ_TMP ?? await fs.mkdtemp(path.join(os.tmpdir(), 'bench-dq-'));
  await fs.chmod(tmp, 0o755); // embedded Postgres runs as another user when we are root
  let stop = async () => {};
  let url = process.env.BENCH_DQ_URL ?? process.env.DATABASE_URL;
  if (!url) { const h = await ensureEmbeddedPostgres(path.join(tmp, 'pgdata'), { database: 'tributary' }); url = h.url; stop = h.stop; }
  await migrate(url);
  if (!LOAD_ONLY) {
    // seed and load in a child process, so this process's RSS is the reconciler's alone
    const { execFileSync } = await import('node:child_process');
    execFileSync(process.execPath, [...process.execArgv, process.argv[1], '--load-only', '--rows', String(ROWS)], { stdio: 'inherit', env: { ...process.env, BENCH_DQ_URL: url, BENCH_DQ_TMP: tmp } });
  }
  const srcUrls: string[] = [];
  for (let i = 0; i < BRANCHES; i++) {
    const name = `bench_dq_src_${i}`;
    await ensureDatabase(url, name);
    srcUrls.push(url.replace(/\/[^/?]+(\?|$)/, `/${name}$1`));
  }
  const pool = new pg.Pool({ connectionString: url, max: 6 });
  const warehouse = path.join(tmp, 'warehouse');
  const lake = openLake({ pool, warehouse });
  const tables = parseTablesConfig([{ table: 'BENCH.ORDERS', unique_key: 'ORDER_ID', cdc_column: 'UPDATED_AT', where_date_column: 'CREATED_AT', category: 'transactions' }]);
  if (LOAD_ONLY) { await load(pool, srcUrls, lake, tables, tmp); await pool.end(); clearInterval(sampler); return; }
  peakRss = 0;
  await measure(pool, srcUrls, lake, tables, url, tmp, stop);
}

async function load(pool: pg.Pool, srcUrls: string[], lake: ReturnType<typeof openLake>, tables: ReturnType<typeof parseTablesConfig>, tmp: string) {
  await pool.query(`TRUNCATE etl_meta.control_state, etl_meta.etl_dq_results`);
  for (const t of await lake.listTables('etl').catch(() => [] as string[])) await lake.dropTable(t, { purge: true }).catch(() => {});
  console.log(`bench dq: ${ROWS.toLocaleString('en-US')} rows × ${BRANCHES} branches; node ${process.version}; ${os.cpus().length} cpus`);
  // sources
  let t = Date.now();
  for (const [i, u] of srcUrls.entries()) {
    const c = new pg.Client({ connectionString: u });
    await c.connect();
    await c.query(`DROP SCHEMA IF EXISTS bench CASCADE; CREATE SCHEMA bench;
      CREATE TABLE bench.orders (order_id bigint PRIMARY KEY, customer_id int NOT NULL, amount numeric(12,2), status varchar(12), note text,
        created_at timestamp NOT NULL, updated_at timestamptz NOT NULL)`);
    await c.query(`INSERT INTO bench.orders SELECT g, g % 5000, round((g % 100000) * 1.37 + ${i}, 2), CASE g % 4 WHEN 0 THEN 'OPEN' WHEN 1 THEN 'DONE' WHEN 2 THEN 'HOLD' ELSE NULL END,
      CASE WHEN g % 3 = 0 THEN NULL ELSE 'note for order ' || g END, timestamp '2024-01-01' + g * interval '7 second', timestamptz '2024-01-01 00:00:00+00' + g * interval '9 second'
      FROM generate_series(1, ${ROWS}) g`);
    await c.query('ANALYZE bench.orders');
    await c.end();
  }
  console.log(`sources seeded in ${((Date.now() - t) / 1000).toFixed(1)}s`);

  // lake, through the ETL engine
  const handles = srcUrls.map((u, i) => ({ key: `b${i}`, source: createPostgresSource({ branch: `b${i}`, connectionString: u, poolSize: 1 }) }));
  t = Date.now();
  const etl = await runEtl({ pool, target: lakeTarget(lake, { namespace: 'etl' }), branches: handles, tables, settings: { ...DEFAULT_SETTINGS, mode: 'INITIAL', retries: 0 }, logger: silentLogger, stagingRoot: path.join(tmp, 'staging') });
  await Promise.all(handles.map((h) => h.source.close()));
  if (!etl.ok) throw new Error(`ETL failed: ${JSON.stringify(etl.units)}`);
  console.log(`lake loaded by the ETL engine in ${((Date.now() - t) / 1000).toFixed(1)}s`);
}

async function measure(pool: pg.Pool, srcUrls: string[], lake: ReturnType<typeof openLake>, tables: ReturnType<typeof parseTablesConfig>, url: string, tmp: string, stop: () => Promise<void>) {
  let s0 = 0;

  // per-side figures on branch b0: the same window both sides, reference COPY of the same rows
  const def = tables[0];
  const src = await openPostgresDqSource({ branch: 'b0', connectionString: srcUrls[0] });
  const table = await lake.loadTable('etl.orders');
  const wm = (await getWatermarks(pool, { namespace: 'etl', table: def.lakeName }, ['b0'])).get('b0') ?? null;
  const plan = planUnit(def, 'postgres', await src.describe(`SELECT t.* FROM ${fromClause(def)}`), null, table.arrowSchema(), { since: '2024-01-01', watermark: wm });
  void HELPER_DATE;
  plan.query.digest = src.digest;
  const copySql = `SELECT t.* FROM ${plan.query.rel.from}${plan.query.rel.where ? ` WHERE ${plan.query.rel.where}` : ''}`;
  const copyOnce = async (format: 'binary' | 'text') => {
    const c = new pg.Client({ connectionString: srcUrls[0] });
    await c.connect();
    const s = Date.now();
    let bytes = 0;
    for await (const d of copyOut(c, `COPY (${copySql}) TO STDOUT (FORMAT ${format})`)) bytes += d.length;
    const ms = Date.now() - s;
    await c.end();
    return { ms, bytes };
  };
  await copyOnce('binary'); // warm the cache
  const copyBin = await copyOnce('binary');
  const copyText = await copyOnce('text');
  const srcSide = src.side(plan.query);
  s0 = Date.now();
  const sd = await srcSide.digests(8);
  const srcMs = Date.now() - s0;
  const nSrc = [...sd.values()].reduce((a, d) => a + d.count, 0);
  const rssBeforeLake = peakRss;
  s0 = Date.now();
  let nScan = 0;
  for await (const b of table.scan({ columns: plan.lakeColumns.map((c) => c.name).concat(plan.window.column ? [plan.window.column] : []), partition: { BRANCH_ID: 'b0' }, snapshotId: table.currentSnapshotId()! })) nScan += b.numRows;
  const scanMs = Date.now() - s0;
  s0 = Date.now();
  const ld = await lakeSideOf(table, 'b0', table.currentSnapshotId(), plan).digests(8);
  const lakeMs = Date.now() - s0;
  const nLake = [...ld.values()].reduce((a, d) => a + d.count, 0);
  await src.close();
  console.log('');
  console.log(`reference  raw COPY binary (same rows):      ${rate(nSrc, copyBin.ms)}  (${(copyBin.ms / 1000).toFixed(2)}s, ${mib(copyBin.bytes)})`);
  console.log(`reference  raw COPY text   (same rows):      ${rate(nSrc, copyText.ms)}  (${(copyText.ms / 1000).toFixed(2)}s)`);
  console.log(`source     hash check, digests in Postgres:  ${rate(nSrc, srcMs)}  (${(srcMs / 1000).toFixed(2)}s, ${sd.size} bucket digests)  ratio vs binary COPY: ${(copyBin.ms / srcMs).toFixed(2)}`);
  console.log(`reference  raw lake scan (lib/lake, same rows): ${rate(nScan, scanMs)}  (${(scanMs / 1000).toFixed(2)}s)`);
  console.log(`lake       hash check, Node decode loop:     ${rate(nLake, lakeMs)}  (${(lakeMs / 1000).toFixed(2)}s)  ratio vs binary COPY: ${(copyBin.ms / lakeMs).toFixed(2)}, vs raw lake scan: ${(scanMs / lakeMs).toFixed(2)}`);
  console.log(`peak RSS   (this process: the reconciler only) source pass ${mib(rssBeforeLake)}, after lake pass ${mib(peakRss)}`);

  // full run, both branches in parallel
  const branches: DqBranch[] = srcUrls.map((u, i) => ({ key: `b${i}`, open: () => openPostgresDqSource({ branch: `b${i}`, connectionString: u }) }));
  s0 = Date.now();
  const full = await runDq({ pool, lake, tables, branches, logger: silentLogger }, { since: '2024-01-01' });
  const fullMs = Date.now() - s0;
  console.log(`full run   ${BRANCHES} branches × ${ROWS.toLocaleString('en-US')} rows: ${(fullMs / 1000).toFixed(1)}s, ${full.results.map((r) => `${r.branch} ${r.status} ${r.oracleRowCount}/${r.icebergRowCount}`).join(', ')}; peak RSS ${mib(peakRss)}`);

  // localise 10 changed rows (value changed at the source, CDC column not moved)
  const c = new pg.Client({ connectionString: srcUrls[0] });
  await c.connect();
  const ids = Array.from({ length: 10 }, (_, k) => Math.floor(((k + 0.5) / 10) * ROWS));
  await c.query(`UPDATE bench.orders SET note = coalesce(note, '') || ' (changed)' WHERE order_id = ANY($1)`, [ids]);
  await c.end();
  s0 = Date.now();
  const loc = await runDq({ pool, lake, tables, branches: branches.slice(0, 1), logger: silentLogger }, { since: '2024-01-01', write: false });
  const locMs = Date.now() - s0;
  const u = loc.results[0];
  const found = (u.exampleKeys as { hash_mismatch: { key: { order_id: string } }[] }).hash_mismatch.map((m) => Number(m.key.order_id)).sort((a, b) => a - b);
  console.log(`localise   10 changed rows on one branch: ${(locMs / 1000).toFixed(1)}s, hash_mismatch=${u.hashMismatch}, keys ${JSON.stringify(found)} ${JSON.stringify(found) === JSON.stringify(ids) ? '(all correct)' : '(WRONG)'}`);
  console.log(`peak RSS   whole reconciler: ${mib(peakRss)}`);

  await pool.end();
  clearInterval(sampler);
  if (!process.argv.includes('--keep')) {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    for (let i = 0; i < BRANCHES; i++) await admin.query(`DROP DATABASE IF EXISTS bench_dq_src_${i} WITH (FORCE)`);
    await admin.end();
    await stop();
    await fs.rm(tmp, { recursive: true, force: true });
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
