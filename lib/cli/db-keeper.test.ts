// CLI commands on a data folder with no server running leave the embedded
// PostgreSQL they start running, kept by one background process, for the next
// commands; `db status` and `db stop` report and stop it; it stops by itself
// when idle; two first commands at once start one server; `worker` (as
// `serve`) takes the folder over from the keeper. Real processes throughout.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pidAlive, readOwner } from '../db/data-folder-owner';
import { runningPostmaster } from '../db/embedded-postgres';
import { KEEPER_COMMAND } from '../db/db-keeper';
import { runTraced } from './testing/trace';

const dirs: string[] = [];
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  for (const d of dirs) {
    const o = readOwner(d);
    if (o && pidAlive(o.pid)) { try { process.kill(o.pid, 'SIGTERM'); } catch { /* gone */ } }
  }
  for (const d of dirs) {
    for (const until = Date.now() + 30_000; runningPostmaster(path.join(d, 'pg')) && Date.now() < until;) await new Promise((r) => setTimeout(r, 200));
    fs.rmSync(d, { recursive: true, force: true });
  }
});

function folder(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'trb-keeper-'));
  dirs.push(d);
  return d;
}

function envFor(dataDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(VITEST|DATABASE_URL$|TRIBUTARY_|NODE_OPTIONS$)/.test(k)) env[k] = v;
  return { ...env, TRIBUTARY_DATA_DIR: dataDir, LOG_LEVEL: "error", ...extra } as unknown as NodeJS.ProcessEnv;
}

function cli(dataDir: string, args: string[], extra: Record<string, string> = {}): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const c = spawn(process.execPath, ['bin/tributary.mjs', ...args], { env: envFor(dataDir, extra), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = ''; let err = '';
    c.stdout.on('data', (d) => { out += d; });
    c.stderr.on('data', (d) => { err += d; });
    c.once('exit', (code) => resolve({ code, out, err }));
  });
}

async function until(what: string, fn: () => boolean, ms = 60_000): Promise<void> {
  for (const end = Date.now() + ms; !fn();) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('the CLI keeps the embedded PostgreSQL for the next commands', () => {
  it('starts it once, reuses it, reports it and stops it on `db stop`', async () => {
    const d = folder();
    expect(JSON.parse((await cli(d, ['db', 'status', '--json'])).out)).toMatchObject({ state: 'stopped' });
    const a = await cli(d, ['tokens', 'list']);
    expect(a.code, a.err).toBe(0);
    const keeper = readOwner(d)!;
    expect(keeper.command).toBe(KEEPER_COMMAND);
    expect(pidAlive(keeper.pid)).toBe(true);
    const postmaster = runningPostmaster(path.join(d, 'pg'));
    expect(postmaster).not.toBeNull();

    const b = await cli(d, ['users', 'list']);
    expect(b.code, b.err).toBe(0);
    expect(readOwner(d)?.pid).toBe(keeper.pid); // reused, not started again
    expect(runningPostmaster(path.join(d, 'pg'))).toBe(postmaster);

    // a read command on the running server loads neither the lake engine nor the job kinds (issue #23)
    const list = runTraced(['bin/tributary.mjs', 'lake', 'list'], { cwd: process.cwd(), env: envFor(d), envOnly: true });
    expect(list.status, list.stderr).toBe(0);
    expect(list.stdout).toContain('(no tables)');
    for (const p of ['apache-arrow', 'parquet-wasm', 'avsc', '@aws-sdk/client-s3', 'pg-boss', '@prisma/client']) expect(list.packages).not.toContain(p);
    expect(list.packages).toContain('pg');

    const s = await cli(d, ['db', 'status', '--json']);
    expect(JSON.parse(s.out)).toMatchObject({ state: 'running', ownerPid: keeper.pid, ownerCommand: KEEPER_COMMAND, idleStopSeconds: 900 });
    expect((await cli(d, ['db', 'status'])).out).toMatch(new RegExp(`running on 127\\.0\\.0\\.1:\\d+, owned by process ${keeper.pid} \\(tributary db keep\\)`));

    const stop = await cli(d, ['db', 'stop']);
    expect(stop.code, stop.err).toBe(0);
    expect(stop.out).toContain('stopped the embedded PostgreSQL');
    expect(pidAlive(keeper.pid)).toBe(false);
    expect(runningPostmaster(path.join(d, 'pg'))).toBeNull();
    expect(readOwner(d)).toBeNull();
    expect(JSON.parse((await cli(d, ['db', 'status', '--json'])).out)).toMatchObject({ state: 'stopped' });
    expect((await cli(d, ['db', 'stop'])).out).toContain('not running');
  }, 300_000);

  it('two first commands at once, on a data folder not made yet, start one server, and it stops by itself when idle', async () => {
    const parent = folder();
    fs.chmodSync(parent, 0o711); // as a home or /var/lib is: the server's own user (root runs it as postgres) passes through
    const d = path.join(parent, 'not-made-yet');
    const idle = { TRIBUTARY_DB_IDLE_SECONDS: '3' };
    const [a, b] = await Promise.all([cli(d, ['db', 'start'], idle), cli(d, ['tokens', 'list'], idle)]);
    expect(a.code, a.err).toBe(0);
    expect(b.code, b.err).toBe(0);
    const keeper = readOwner(d)!;
    expect(keeper.command).toBe(KEEPER_COMMAND);
    // One keeper log line per server started: one.
    const log = fs.readFileSync(path.join(d, 'pg.keeper.log'), 'utf8');
    expect(log.match(/keeping the embedded PostgreSQL/g) ?? [], log).toHaveLength(1);
    // The second keeper leaves the folder to the first: it must not take it over (killing it mid-initdb).
    expect(log).not.toMatch(/taking the embedded PostgreSQL over/);
    await until('the idle keeper to stop', () => !pidAlive(keeper.pid) && runningPostmaster(path.join(d, 'pg')) === null);
    expect(readOwner(d)).toBeNull();
    expect(fs.readFileSync(path.join(d, 'pg.keeper.log'), 'utf8')).toMatch(/stopping the embedded PostgreSQL: no client for 3 s/);
  }, 300_000);

  it('a worker takes the folder over from the keeper; `db stop` then refuses, naming the worker', async () => {
    const d = folder();
    expect((await cli(d, ['users', 'list'])).code).toBe(0);
    const keeper = readOwner(d)!;
    expect(keeper.command).toBe(KEEPER_COMMAND);
    const w = spawn(process.execPath, ['bin/tributary.mjs', 'worker'], { env: envFor(d, { LOG_LEVEL: 'info' }), stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(w);
    let out = '';
    w.stdout.on('data', (x) => { out += x; });
    w.stderr.on('data', (x) => { out += x; });
    await until('the worker to own the folder', () => readOwner(d)?.pid === w.pid && out.includes('worker started'), 120_000);
    expect(pidAlive(keeper.pid)).toBe(false);
    expect(out).toContain(`taking the embedded PostgreSQL over from the CLI's keeper (process ${keeper.pid})`);
    // A command now attaches to the worker's server.
    const c = await cli(d, ['users', 'list']);
    expect(c.code, c.err).toBe(0);
    expect(readOwner(d)?.pid).toBe(w.pid);
    const stop = await cli(d, ['db', 'stop']);
    expect(stop.code).toBe(3);
    expect(stop.err).toContain(`belongs to process ${w.pid} (tributary worker)`);
    w.kill('SIGTERM');
    await until('the worker to stop its server', () => runningPostmaster(path.join(d, 'pg')) === null, 120_000);
  }, 300_000);
});
