/**
 * Slices benchmark (issue 7):
 * - the native executor on a table of N rows (default 2M) with 1, 2, 4, 8
 *   slices at concurrency = slices: rows/s and speedup over 1 slice, with a raw
 *   single-stream `COPY … TO STDOUT` → `COPY … FROM STDIN` of the same rows
 *   measured in the same run as the reference;
 * - orchestration overhead per slice through the Striim emulator for 64
 *   slices: wall time minus the emulator's own copy time, at concurrency 1
 *   (where the two add up), plus the wall time at concurrency 8.
 *
 *   npx tsx bench/slices.ts [--rows 2000000] [--emu-rows 64000]
 * Uses $DATABASE_URL when set, else an embedded PostgreSQL in a temp folder.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { copyIn, copyOut } from '../lib/sources';
import { ensureDatabase, ensureEmbeddedPostgres, migrate } from '../lib/db';
import { createNativeExecutor } from '../lib/slices/run/native-executor';
import { runSlices } from '../lib/slices/run/orchestrator';
import { resolveSettings } from '../lib/slices/run/settings';
import { startStriimEmulator } from '../lib/slices/testing/striim-emulator';
import { DEFAULT_TQL_TEMPLATE } from '../lib/slices/run/tql-template';

const arg = (name: string, def: string) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : def; };
const ROWS = Number(arg('--rows', '2000000'));
const EMU_ROWS = Number(arg('--emu-rows', '64000'));
const rate = (n: number, ms: number) => Math.round(n / (ms / 1000));
const fmt = (n: number) => n.toLocaleString('en-US');
const DDL = '(id bigint primary key, grp int not null, amount numeric(12,2), note text, created_at timestamptz not null)';

async function q(url: string, text: string) { const c = new pg.Client({ connectionString: url }); await c.connect(); try { return (await c.query(text)).rows; } finally { await c.end(); } }

function queryFile(table: string, target: string, rows: number, n: number): string {
  const step = Math.ceil(rows / n);
  return Array.from({ length: n }, (_, i) => `SELECT s.* FROM ${table} s WHERE s.id >= ${1 + i * step} AND s.id < ${1 + (i + 1) * step}|${target}`).join('\n');
}

async function main() {
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-slices-'));
  await fs.chmod(tmp, 0o755);
  let stop = async () => {};
  let url = process.env.DATABASE_URL;
  if (!url) { const h = await ensureEmbeddedPostgres(path.join(tmp, 'pgdata'), { database: 'tributary' }); url = h.url; stop = h.stop; }
  await migrate(url);
  const dbUrl = (name: string) => url!.replace(/\/[^/?]+(\?|$)/, `/${name}$1`);
  await ensureDatabase(url, 'bench_slices_src');
  await ensureDatabase(url, 'bench_slices_tgt');
  const srcUrl = dbUrl('bench_slices_src');
  const tgtUrl = dbUrl('bench_slices_tgt');
  const pool = new pg.Pool({ connectionString: url, max: 12 });
  console.log(`bench slices: ${fmt(ROWS)} rows; node ${process.version}; ${os.cpus().length} cpus`);

  let t = Date.now();
  await q(srcUrl, `DROP TABLE IF EXISTS public.src, public.esrc; CREATE TABLE public.src ${DDL};
    INSERT INTO public.src SELECT g, g % 97, round((g * 1.37)::numeric, 2), 'row ' || g, timestamptz '2024-01-01' + g * interval '1 second' FROM generate_series(1, ${ROWS}) g;
    CREATE TABLE public.esrc ${DDL}; INSERT INTO public.esrc SELECT * FROM public.src WHERE id <= ${EMU_ROWS}; ANALYZE public.src; ANALYZE public.esrc;`);
  console.log(`source built in ${((Date.now() - t) / 1000).toFixed(1)} s`);

  // reference: one raw COPY stream source → target
  await q(tgtUrl, `DROP TABLE IF EXISTS public.ref; CREATE TABLE public.ref ${DDL}`);
  const s = new pg.Client({ connectionString: srcUrl }); await s.connect();
  const d = new pg.Client({ connectionString: tgtUrl }); await d.connect();
  t = Date.now();
  const sink = copyIn(d, 'COPY public.ref FROM STDIN');
  for await (const chunk of copyOut(s, 'COPY public.src TO STDOUT')) await sink.write(chunk);
  await sink.end();
  const refMs = Date.now() - t;
  await s.end(); await d.end();
  console.log(`reference raw COPY → COPY (1 stream, plain insert): ${fmt(rate(ROWS, refMs))} rows/s (${(refMs / 1000).toFixed(1)} s)`);

  // native executor: 1, 2, 4, 8 slices
  const results: { n: number; ms: number }[] = [];
  for (const [i, n] of [1, 2, 4, 8].entries()) {
    const target = `public.tgt_${n}`;
    await q(tgtUrl, `DROP TABLE IF EXISTS ${target}; CREATE TABLE ${target} ${DDL}`);
    const settings = resolveSettings({}, { runId: 100 + i, executor: 'native', concurrency: n, sourceUrl: srcUrl, targetUrl: tgtUrl, logDir: tmp, monitorInterval: 0.05, deployWait: 0, forceFresh: true }, tmp);
    t = Date.now();
    const r = await runSlices({ pool, settings, queryFileText: queryFile('public.src', target, ROWS, n), nativeExecutor: (x) => createNativeExecutor(x) });
    const ms = Date.now() - t;
    const [c] = await q(tgtUrl, `SELECT count(*)::int n, count(distinct id)::int d FROM ${target}`);
    if (r.verdict !== 'FINISHED' || c.n !== ROWS || c.d !== ROWS) throw new Error(`native ${n} slices: ${r.verdict}, ${c.n} rows, ${c.d} distinct`);
    results.push({ n, ms });
  }
  const base = rate(ROWS, results[0].ms);
  for (const r of results) {
    console.log(`native ${r.n} slice(s): ${fmt(rate(ROWS, r.ms))} rows/s (${(r.ms / 1000).toFixed(1)} s)  speedup ×${(rate(ROWS, r.ms) / base).toFixed(2)} over 1 slice  ×${(rate(ROWS, r.ms) / rate(ROWS, refMs)).toFixed(2)} of raw COPY`);
  }

  // orchestration overhead through the emulator: 64 slices
  const emu = await startStriimEmulator({ sourceUrl: srcUrl, targetUrl: tgtUrl });
  const template = DEFAULT_TQL_TEMPLATE.replace(/EventCount:100,/g, 'EventCount:1000,');
  for (const conc of [1, 8]) {
    const target = `public.etgt_${conc}`;
    await q(tgtUrl, `DROP TABLE IF EXISTS ${target}; CREATE TABLE ${target} ${DDL}`);
    const settings = resolveSettings({ STRIIM_ADMIN_PWD: 'admin' }, { runId: 200 + conc, concurrency: conc, striimUrl: emu.url, sourceUrl: srcUrl, logDir: tmp, monitorInterval: 0.05, deployWait: 0, forceFresh: true }, tmp);
    const copy0 = emu.stats.copyMs;
    t = Date.now();
    const r = await runSlices({ pool, settings, queryFileText: queryFile('public.esrc', target, EMU_ROWS, 64), templateText: template });
    const wall = Date.now() - t;
    const copy = emu.stats.copyMs - copy0;
    const [c] = await q(tgtUrl, `SELECT count(*)::int n FROM ${target}`);
    if (r.verdict !== 'FINISHED' || c.n !== EMU_ROWS) throw new Error(`emulator run: ${r.verdict}, ${c.n} rows`);
    if (conc === 1) console.log(`emulator 64 slices × ${fmt(EMU_ROWS / 64)} rows, concurrency 1: wall ${(wall / 1000).toFixed(1)} s, emulator copy ${(copy / 1000).toFixed(1)} s → orchestration overhead ${((wall - copy) / 64).toFixed(0)} ms/slice (monitor interval 50 ms, deploy wait 0)`);
    else console.log(`emulator 64 slices, concurrency ${conc}: wall ${(wall / 1000).toFixed(1)} s (summed copy ${(copy / 1000).toFixed(1)} s)`);
  }
  await emu.close();
  await pool.end();
  for (const n of ['bench_slices_src', 'bench_slices_tgt']) await q(url, `DROP DATABASE IF EXISTS ${n} WITH (FORCE)`).catch(() => {});
  await stop();
  await fs.rm(tmp, { recursive: true, force: true });
}

main().catch((e) => { console.error(e); process.exit(1); });
