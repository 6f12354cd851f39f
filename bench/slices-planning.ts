/**
 * Slice planning benchmark and acceptance check (issue 6, "Done when"):
 * on an independent Postgres table (not the tests' shape) the real CLI
 * (`node bin/tributary.mjs slices split|probe`) must give, for the physical,
 * column and partition strategies, slices whose counts sum to the table count
 * with no overlap; and `probe --depth bakeoff` must print a recommendation
 * within its time budget.
 *
 * Reference measured in the same run: a raw single-stream
 * `COPY (SELECT …) TO STDOUT` of the whole table (MB/s and seconds); printed
 * as ratios: probe wall time / full copy time, winner MB/s / raw MB/s.
 *
 *   npx tsx bench/slices-planning.ts [--rows 1000000]
 * Uses $DATABASE_URL when set, else an embedded PostgreSQL in a temp folder.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { copyOut } from '../lib/sources';
import { ensureDatabase, ensureEmbeddedPostgres } from '../lib/db';
import { parseQueryfile } from '../lib/slices/planning/queryfile';

const arg = (name: string, def: string) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : def; };
const ROWS = Number(arg('--rows', '1000000'));
const BIN = path.resolve(import.meta.dirname, '../bin/tributary.mjs');

function cli(args: string[], env: Record<string, string>, cwd: string): Promise<{ code: number; stdout: string; stderr: string; ms: number }> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, 'slices', ...args], { cwd, env: { ...process.env, ...env }, encoding: 'utf8', maxBuffer: 64 << 20 },
      (err: (Error & { code?: unknown }) | null, stdout: string, stderr: string) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr, ms: performance.now() - t0 }));
  });
}

async function main() {
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-planning-'));
  await fs.chmod(tmp, 0o755); // initdb runs as the postgres user
  let stop = async () => {};
  let url = process.env.DATABASE_URL;
  if (!url) { const h = await ensureEmbeddedPostgres(path.join(tmp, 'pgdata'), { database: 'tributary' }); url = h.url; stop = h.stop; }
  const srcUrl = url.replace(/\/[^/?]+(\?|$)/, '/bench_planning_src$1');
  const appUrl = url.replace(/\/[^/?]+(\?|$)/, '/bench_planning_app$1');
  await ensureDatabase(url, 'bench_planning_src');
  await ensureDatabase(url, 'bench_planning_app');
  const src = new pg.Client({ connectionString: srcUrl });
  await src.connect();
  try {
    console.log(`building sales.line_items (${ROWS} rows) and sales.ledger (${ROWS} rows, 12 monthly partitions)…`);
    await src.query(`DROP SCHEMA IF EXISTS sales CASCADE; CREATE SCHEMA sales;
      CREATE TABLE sales.line_items (order_id bigint, line int, sku text, qty int, sold_at timestamptz, PRIMARY KEY (order_id, line));
      INSERT INTO sales.line_items SELECT g / 4, g % 4, 'SKU-' || (g % 5000), 1 + g % 9, timestamptz '2023-01-01 00:00+00' + g * interval '29 seconds' FROM generate_series(1, ${ROWS}) g;
      CREATE INDEX line_items_sold_at ON sales.line_items (sold_at);
      CREATE TABLE sales.ledger (id bigint, booked date NOT NULL, amount numeric(14,2)) PARTITION BY RANGE (booked);
      ${Array.from({ length: 12 }, (_, m) => `CREATE TABLE sales.ledger_m${m + 1} PARTITION OF sales.ledger FOR VALUES FROM ('2024-${String(m + 1).padStart(2, '0')}-01') TO ('${m === 11 ? '2025-01' : `2024-${String(m + 2).padStart(2, '0')}`}-01');`).join('\n')}
      INSERT INTO sales.ledger SELECT g, date '2024-01-01' + (g % 366), g % 100000 / 100.0 FROM generate_series(1, ${ROWS}) g;
      ANALYZE sales.line_items; ANALYZE sales.ledger;
      CREATE UNLOGGED TABLE public.seen (k text, slice int);`);

    // reference: one raw stream of the whole table
    let refBytes = 0;
    const t0 = performance.now();
    for await (const chunk of copyOut(src, 'COPY (SELECT * FROM sales.line_items) TO STDOUT')) refBytes += chunk.length;
    const refSecs = (performance.now() - t0) / 1000;
    const refMBps = refBytes / 1048576 / refSecs;
    console.log(`reference: raw COPY of sales.line_items: ${(refBytes / 1048576).toFixed(1)} MB in ${refSecs.toFixed(2)} s = ${refMBps.toFixed(2)} MB/s`);

    const env = { DATABASE_URL: appUrl, SLICES_SOURCE_URL: srcUrl, SOURCE_DB_TYPE: 'postgres', TRIBUTARY_DATA_DIR: path.join(tmp, 'data'), LOG_LEVEL: 'warn' };
    await fs.writeFile(path.join(tmp, 'li.sql'), 'SELECT li.order_id, li.line, li.qty, li.sold_at FROM sales.line_items li WHERE li.qty > 0 AND ~SPLIT~\n');
    await fs.writeFile(path.join(tmp, 'lg.sql'), 'SELECT l.id, l.amount FROM sales.ledger l WHERE ~SPLIT~\n');
    const cases: { name: string; args: string[]; table: string; key: string }[] = [
      { name: 'physical (ctid)', table: 'sales.line_items', key: "q.order_id || '/' || q.line", args: ['--query-file', 'li.sql', '--table', 'sales.line_items', '--strategy', 'rowid', '--chunks', '24'] },
      { name: 'column (sold_at)', table: 'sales.line_items', key: "q.order_id || '/' || q.line", args: ['--query-file', 'li.sql', '--table', 'sales.line_items', '--strategy', 'column', '--column', 'sold_at', '--chunks', '24'] },
      { name: 'partition', table: 'sales.ledger', key: 'q.id::text', args: ['--query-file', 'lg.sql', '--table', 'sales.ledger', '--strategy', 'partition'] },
    ];
    let ok = true;
    for (const [i, c] of cases.entries()) {
      const out = `qf${i}.txt`;
      const r = await cli(['split', ...c.args, '--target', 'TGT.T', '--output', out, '--run-id', String(100 + i)], env, tmp);
      if (r.code !== 0) { console.log(r.stdout, r.stderr); throw new Error(`split ${c.name} failed`); }
      const lines = parseQueryfile(await fs.readFile(path.join(tmp, out), 'utf8'));
      await src.query('TRUNCATE public.seen');
      const t1 = performance.now();
      for (const [j, l] of lines.entries()) await src.query(`INSERT INTO public.seen SELECT ${c.key}, ${j} FROM (${l.sql}) q`);
      const readSecs = (performance.now() - t1) / 1000;
      const s = (await src.query('SELECT count(*)::bigint AS total, count(DISTINCT k)::bigint AS dist FROM public.seen')).rows[0];
      const n = (await src.query(`SELECT count(*)::bigint AS n FROM ${c.table}`)).rows[0].n;
      const pass = s.total === n && s.dist === n;
      ok &&= pass;
      console.log(`split ${c.name.padEnd(17)} slices=${String(lines.length).padStart(3)}  split ${(r.ms / 1000).toFixed(2)} s  sum(slice counts)=${s.total}  distinct keys=${s.dist}  table count=${n}  ${pass ? 'OK (disjoint, complete)' : 'MISMATCH'}  (reading all slices ${readSecs.toFixed(2)} s)`);
    }

    const budget = 20;
    const p = await cli(['probe', '--query-file', 'li.sql', '--table', 'sales.line_items', '--depth', 'bakeoff', '--time-budget-seconds', String(budget), '--run-id', '100', '--json'], env, tmp);
    if (p.code !== 0) { console.log(p.stdout, p.stderr); throw new Error('probe failed'); }
    const rec = JSON.parse(p.stdout);
    const panel = await cli(['probe', '--query-file', 'li.sql', '--table', 'sales.line_items', '--depth', 'bakeoff', '--time-budget-seconds', String(budget)], env, tmp);
    console.log(panel.stdout.trimEnd());
    const probeSecs = p.ms / 1000;
    const candidates = rec.candidates.length;
    const within = probeSecs <= candidates * budget + 30;
    ok &&= within;
    console.log(`probe --depth bakeoff: ${probeSecs.toFixed(2)} s wall (CLI start included), ${candidates} candidates, budget ${budget} s each → ${within ? 'within budget' : 'OVER BUDGET'}`);
    console.log(`ratio probe wall / raw full-table COPY: ${(probeSecs / refSecs).toFixed(2)}`);
    console.log(`ratio winner MB/s (${rec.winner_MB_per_sec.toFixed(2)}) / raw COPY MB/s (${refMBps.toFixed(2)}): ${(rec.winner_MB_per_sec / refMBps).toFixed(2)}`);
    console.log(ok ? 'ACCEPTANCE: PASS' : 'ACCEPTANCE: FAIL');
    process.exitCode = ok ? 0 : 1;
  } finally {
    await src.end();
    await stop();
    await fs.rm(tmp, { recursive: true, force: true });
  }
}

await main();
