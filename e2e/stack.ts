// Starts the real Tributary stack for browser tests: `tributary serve` (embedded
// Postgres in a temporary data folder, migrations, env admin, panel build when
// needed, `next start`, one worker) on a free port; stops it with SIGTERM.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { buildPanelIfNeeded } from '../lib/cli/panel-build';

export const ROOT = path.resolve(import.meta.dirname, '..');
export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export interface Stack { baseUrl: string; dataDir: string; pid: number; output(): string; stop(): Promise<void> }

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Start `node bin/tributary.mjs serve` and wait until the panel answers.
 * @param opts.timeoutMs how long to wait, build included (Default: 15 minutes)
 */
export async function startStack(opts: {
  admin: { name: string; password: string }; timeoutMs?: number;
  /** Use this data folder and keep it on stop (Default: a temporary folder, removed on stop). */
  dataDir?: string;
  /** Signal sent by stop(). (Default: SIGTERM) */
  stopSignal?: NodeJS.Signals;
  /** Extra environment for the server (e.g. a short login window). (Default: none) */
  env?: Record<string, string>;
}): Promise<Stack> {
  // Build first (serve would too), retrying while another `next build` of this
  // tree holds Next's build lock — engineers and test files share one .next.
  for (let attempt = 1; ; attempt++) {
    try { buildPanelIfNeeded((m) => process.stderr.write(`e2e: ${m}\n`)); break; } catch (e) {
      if (attempt >= 4) throw e;
      await new Promise((r) => setTimeout(r, 20_000));
    }
  }
  const dataDir = opts.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'tributary-e2e-'));
  const port = await freePort();
  const env: Record<string, string | undefined> = {};
  // A clean environment: nothing from the test runner (NODE_ENV=test, a DATABASE_URL) leaks into the server.
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(VITEST|DATABASE_URL$|NEXTAUTH|TRIBUTARY_|PORT$|HOST$|NODE_ENV$|NODE_OPTIONS$)/.test(k)) continue;
    env[k] = v;
  }
  Object.assign(env, {
    TRIBUTARY_DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    TRIBUTARY_ADMIN_USER: opts.admin.name,
    TRIBUTARY_ADMIN_PASSWORD: opts.admin.password,
    NEXT_TELEMETRY_DISABLED: '1',
    NODE_ENV: 'production',
    ...opts.env,
  });
  let out = '';
  const child: ChildProcess = spawn(process.execPath, [path.join(ROOT, 'bin/tributary.mjs'), 'serve'], { cwd: ROOT, env: env as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { out += d; });
  const exited = new Promise<void>((res) => child.once('exit', () => res()));
  const baseUrl = `http://127.0.0.1:${port}`;

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill(opts.stopSignal ?? 'SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 60_000);
      await exited;
      clearTimeout(t);
    }
    if (!opts.dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  };

  const deadline = Date.now() + (opts.timeoutMs ?? 15 * 60_000);
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      await stop();
      throw new Error(`e2e: tributary serve exited early (${child.exitCode ?? child.signalCode}):\n${out.slice(-4000)}`);
    }
    try {
      const [h, l] = await Promise.all([fetch(`${baseUrl}/api/v1/health`), fetch(`${baseUrl}/login`, { redirect: 'manual' })]);
      if (h.ok && l.status === 200) break;
    } catch { /* not listening yet */ }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`e2e: the panel did not come up at ${baseUrl}:\n${out.slice(-4000)}`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  return { baseUrl, dataDir, pid: child.pid!, output: () => out, stop };
}

/** The URL of the stack's embedded PostgreSQL (as its owner), read from the data folder's pg.json: tests use it as a branch or to plant state. */
export function stackDatabaseUrl(stack: Stack): string {
  const rec = JSON.parse(fs.readFileSync(`${stack.dataDir}/pg.json`, 'utf8')) as { port: number; user: string; password: string };
  return `postgres://${rec.user}:${encodeURIComponent(rec.password)}@127.0.0.1:${rec.port}/tributary`;
}
