/**
 * bench/cli.ts — how fast `tributary` starts (issue 15: under 0.5 s).
 *
 * Median wall time of N runs each, in the same run, of
 *   node -e 0 (the floor), tributary --help, tributary --version, tributary lake list,
 * from the compiled bundle (dist/cli, built first when stale) and, for comparison,
 * from the sources through tsx (TRIBUTARY_CLI_SOURCES=1); with the ratio to `node -e 0`.
 * `lake list` runs against $DATABASE_URL when set, else against an embedded
 * PostgreSQL started once in a temporary data folder (the CLI finds it running,
 * as it finds `npm start`'s), so the number is the CLI's start, not Postgres'.
 * `lake list (cold)` runs with no server: in a second data folder (initialised
 * once, untimed) whose server `tributary db stop` stopped before each sample,
 * so each sample starts the keeper and its PostgreSQL (issue #23: ≤ 2 s).
 * Goals (#23): --help and --version ≤ 1.5× node -e 0; a read command ≤ node -e 0
 * + 0.5 s with the database up, ≤ 2 s cold.
 *
 *   npx tsx bench/cli.ts [--runs 9] [--no-sources]
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ensureEmbeddedPostgres, migrate } from '../lib/db';
import { buildCli, freshCliEntry } from '../lib/cli/cli-build.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
const BIN = path.join(ROOT, 'bin/tributary.mjs');
const arg = (name: string, def: string) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : def; };
const RUNS = Number(arg('--runs', '9'));
const SOURCES = !process.argv.includes('--no-sources');

const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };

function time(args: string[], env: NodeJS.ProcessEnv): number {
  const t = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { cwd: ROOT, env, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.status !== 0) throw new Error(`bench cli: ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

async function main() {
  if (!freshCliEntry(ROOT)) { console.log('bench cli: compiling the CLI (dist/cli is stale or missing)'); await buildCli(ROOT); }
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-cli-'));
  await fs.chmod(tmp, 0o755); // embedded Postgres runs as another user when we are root
  const coldDir = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-cli-cold-'));
  let stop = async () => {};
  const env: NodeJS.ProcessEnv = { ...process.env, TRIBUTARY_DATA_DIR: tmp, LOG_LEVEL: 'warn' };
  try {
    if (process.env.DATABASE_URL) await migrate(process.env.DATABASE_URL);
    else {
      const h = await ensureEmbeddedPostgres(tmp, { database: 'tributary' });
      stop = h.stop;
      await migrate(h.url);
    }
    const cases: { label: string; args: string[]; env: NodeJS.ProcessEnv }[] = [
      { label: 'node -e 0', args: ['-e', '0'], env },
      ...['--help', '--version', 'lake list'].map((c) => ({ label: `tributary ${c}`, args: [BIN, ...c.split(' ')], env })),
      ...(SOURCES ? ['--help', 'lake list'].map((c) => ({ label: `tributary ${c} (tsx, sources)`, args: [BIN, ...c.split(' ')], env: { ...env, TRIBUTARY_CLI_SOURCES: '1' } })) : []),
    ];
    for (const c of cases) time(c.args, c.env); // warm the file cache
    const samples = new Map(cases.map((c) => [c.label, [] as number[]]));
    // Interleaved, so load on the machine hits every case alike.
    for (let i = 0; i < RUNS; i++) for (const c of cases) samples.get(c.label)!.push(time(c.args, c.env));
    const floor = median(samples.get('node -e 0')!);
    console.log(`bench cli: median of ${RUNS} runs each; node ${process.version}; ${os.cpus().length} cpus; load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    // Cold: no server running before each sample (the keeper it leaves is stopped, untimed).
    const cold: number[] = [];
    const coldEnv: NodeJS.ProcessEnv = { ...env, TRIBUTARY_DATA_DIR: coldDir };
    if (!process.env.DATABASE_URL) {
      time([BIN, 'lake', 'list'], coldEnv); // initdb and migrations, once
      for (let i = 0; i < RUNS; i++) { time([BIN, 'db', 'stop'], coldEnv); cold.push(time([BIN, 'lake', 'list'], coldEnv)); }
      time([BIN, 'db', 'stop'], coldEnv);
    }
    const m = (label: string) => median(samples.get(label)!);
    for (const c of cases) console.log(`  ${c.label.padEnd(36)} ${m(c.label).toFixed(0).padStart(6)} ms   ×${(m(c.label) / floor).toFixed(1)} node -e 0`);
    if (cold.length) console.log(`  ${'tributary lake list (cold)'.padEnd(36)} ${median(cold).toFixed(0).padStart(6)} ms   ×${(median(cold) / floor).toFixed(1)} node -e 0`);
    const goal = (ok: boolean, what: string) => console.log(`  goal ${ok ? 'met' : 'NOT met'}: ${what}`);
    goal(m('tributary --help') <= 1.5 * floor && m('tributary --version') <= 1.5 * floor, '--help and --version ≤ 1.5× node -e 0');
    goal(m('tributary lake list') <= floor + 500, 'lake list ≤ node -e 0 + 0.5 s with the database up');
    if (cold.length) goal(median(cold) <= 2000, 'lake list ≤ 2 s cold');
  } finally {
    await stop();
    spawnSync(process.execPath, [BIN, 'db', 'stop'], { cwd: ROOT, env: { ...process.env, TRIBUTARY_DATA_DIR: coldDir } });
    await fs.rm(tmp, { recursive: true, force: true });
    await fs.rm(coldDir, { recursive: true, force: true });
  }
}

await main();
