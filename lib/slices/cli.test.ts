import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useSliceDatabases } from '../testing/slice-databases';
import { waitFor } from '../testing/wait-for';
import { acquireRunLock } from './run/run-lock';
import { startStriimEmulator, type StriimEmulator } from './testing/striim-emulator';
import { fastTemplate, queryFile, sql } from './run/test-fixtures';
import { DEFAULT_TQL_TEMPLATE } from './run/tql-template';

// The orchestrator as a real child process (`node bin/tributary.mjs slices …`), killed with SIGKILL mid-run.
const ROWS = 100_000;
const ROOT = path.resolve(import.meta.dirname, '../..');
const fx = useSliceDatabases({ rows: ROWS });
let emu: StriimEmulator;
let qf: string;
let tpl: string;

beforeAll(async () => {
  emu = await startStriimEmulator({ sourceUrl: fx.src.url, targetUrl: fx.tgt.url, faults: { batchDelayMs: 40 } });
  qf = path.join(fx.dir, 'queryfile.txt');
  await fs.writeFile(qf, queryFile('public.src', 'public.tgt', ROWS, 16));
  tpl = path.join(fx.dir, 'admin.SW.tql');
  await fs.writeFile(tpl, fastTemplate(DEFAULT_TQL_TEMPLATE).replace(/EventCount:2000,/g, 'EventCount:500,'));
});
afterAll(async () => { await emu?.close(); });

function cli(args: string[], env: Record<string, string> = {}): { child: ChildProcess; done: Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }> } {
  const child = spawn(process.execPath, ['bin/tributary.mjs', 'slices', ...args], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: fx.db.url, TRIBUTARY_DATA_DIR: fx.dir, STRIIM_ADMIN_USER: 'admin', STRIIM_ADMIN_PWD: 'admin', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => { stdout += d; });
  child.stderr!.on('data', (d) => { stderr += d; });
  const done = new Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }>((resolve) => {
    child.on('exit', (code, signal) => setTimeout(() => resolve({ code, signal, stdout, stderr }), 50));
  });
  return { child, done };
}

const runArgs = (runId: number) => ['run', '--run-id', String(runId), '--query-file', qf, '--template', tpl, '--striim-url', emu.url, '--source-url', fx.src.url,
  '--concurrency', '4', '--monitor-interval', '0.05', '--deploy-wait', '0', '--backoff-base', '5'];

describe('tributary slices (CLI)', () => {
  it('survives kill -9 mid-run: the rerun with the same run id completes, no duplicates, COMPLETED slices not re-run', async () => {
    const first = cli(runArgs(9));
    // wait until some slices completed and others are in flight, then SIGKILL
    const completedBefore = await waitFor('three slices completed while others run', async () => {
      const rows = (await fx.db.pool.query("select roworder, status from striim_orchestration where uniquerunid = 9")).rows;
      const completed = rows.filter((r) => r.status === 'COMPLETED').map((r) => r.roworder as number);
      return completed.length >= 3 && rows.some((r) => r.status === 'RUNNING') && completed;
    }, 120_000, 100);
    expect(completedBefore.length).toBeGreaterThanOrEqual(3);
    first.child.kill('SIGKILL');
    const r1 = await first.done;
    expect(r1.signal).toBe('SIGKILL');
    expect(r1.stdout).toMatch(/INITIAL LOAD START WATERMARK \[PostgreSQL WAL LSN\]/);
    const before = (await fx.db.pool.query("select roworder from striim_orchestration where uniquerunid = 9 and status = 'COMPLETED'")).rows.map((r) => r.roworder);

    const second = cli(runArgs(9));
    const r2 = await second.done;
    expect(r2.stderr).toBe('');
    expect(r2.code).toBe(0);
    expect(r2.stdout).toMatch(/run 9: FINISHED — 16\/16 COMPLETED/);
    expect(r2.stdout).not.toMatch(/WATERMARK/); // a resume keeps the first watermark
    const [t] = await sql(fx.tgt.url, 'select count(*)::int n, count(distinct id)::int d from public.tgt');
    expect(t).toEqual({ n: ROWS, d: ROWS });
    // slices completed before the kill were started once only and kept their single attempt
    const starts = emu.stats.commands.filter((c) => c.startsWith('START APPLICATION'));
    for (const n of before) expect(starts.filter((c) => c === `START APPLICATION ILA_9_${n}.OracleInitialLoadApp`).length).toBe(1);
    const att = (await fx.db.pool.query('select roworder, attempts from striim_orchestration where uniquerunid = 9 and roworder = any($1)', [before])).rows;
    expect(att.every((r) => r.attempts === 1)).toBe(true);
    expect(emu.apps.size).toBe(0);

    // board --json agrees with the table
    const b = await cli(['board', '--run-id', '9', '--json']).done;
    expect(b.code).toBe(0);
    const feed = JSON.parse(b.stdout);
    const counts = (await fx.db.pool.query("select status, count(*)::int n from striim_orchestration where uniquerunid = 9 group by status")).rows;
    expect(feed).toMatchObject({ runId: 9, total: 16, percentComplete: 100, verdict: 'FINISHED', active: false });
    for (const c of counts) expect(feed.counts[c.status]).toBe(c.n);
    const st = JSON.parse((await cli(['status', '--run-id', '9', '--json']).done).stdout);
    expect(st.counts).toMatchObject({ COMPLETED: 16, total: 16 });
    expect(st.watermark.label).toBe('PostgreSQL WAL LSN');
    const side = JSON.parse(await fs.readFile(path.join(fx.dir, 'slices', 'logging', 'run_9_watermark.json'), 'utf8'));
    expect(side.value).toBe(st.watermark.value);
  }, 400_000); // five CLI processes: slow when the machine is busy

  it('refuses with meaningful exit codes: run lock (3), bad flags (2), clear --hard without --yes (2)', async () => {
    const lock = await acquireRunLock(fx.db.pool, 10);
    try {
      const r = await cli(runArgs(10)).done;
      expect(r.code).toBe(3);
      expect(r.stderr).toMatch(/run 10 is already running \(locked by .*pid \d+/);
    } finally { await lock.release(); }
    const bad = await cli(['run', '--run-id', '10', '--concurrency', '0']).done;
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--concurrency must be >= 1/);
    const hard = await cli(['clear', '--run-id', '10', '--hard']).done;
    expect(hard.code).toBe(2);
    expect(hard.stderr).toMatch(/--yes/);
  }, 300_000);
});
