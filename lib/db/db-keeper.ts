import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { AppError } from '../errors';
import { projectRoot } from '../config/project-root';
import { pidAlive, readOwner, type OwnerRecord } from './data-folder-owner';

/**
 * The keeper: a small background process (`tributary db keep`) that owns a
 * data folder's embedded PostgreSQL for CLI commands, so that a script of ten
 * commands starts the server once, not ten times. The first command that
 * finds no server spawns it and attaches as a client; later commands attach
 * too; `serve` and `worker` take the folder over (the keeper stops its server
 * and exits, they start their own); it stops by itself after
 * TRIBUTARY_DB_IDLE_SECONDS without a client, or on `tributary db stop`.
 */
export const KEEPER_COMMAND = 'tributary db keep';

const keeperLog = (dataDir: string) => path.join(dataDir, 'pg.keeper.log');

/** Whether a recorded owner is a keeper (which serve and worker may take the folder from). */
export const isKeeper = (o: OwnerRecord | null): boolean => o?.command === KEEPER_COMMAND;

/**
 * Start a keeper for `dataDir` in the background and wait until its server
 * answers (or another starter's does: of two racing keepers one wins the
 * folder and the other exits). Its output goes to `<dataDir>/pg.keeper.log`.
 * @param env the environment the keeper runs with (this process's, parsed settings' source)
 * @param timeoutMs how long to wait; a first start runs initdb (Default: 180000 ms)
 */
export async function spawnKeeper(dataDir: string, env: NodeJS.ProcessEnv, timeoutMs = 180_000): Promise<void> {
  // a first command on a folder not made yet (`db start` included) makes it, as the server's initdb would
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const log = fs.openSync(keeperLog(dataDir), 'a', 0o600);
  const child = spawn(process.execPath, [path.join(projectRoot(), 'bin/tributary.mjs'), 'db', 'keep'], {
    cwd: projectRoot(), detached: true, stdio: ['ignore', log, log],
    env: { ...env, TRIBUTARY_DATA_DIR: dataDir },
  });
  fs.closeSync(log);
  let exited: number | null = null;
  child.once('exit', (code) => { exited = code ?? 1; });
  child.unref();
  const until = Date.now() + timeoutMs;
  for (;;) {
    const owner = readOwner(dataDir);
    if (owner && owner.port && pidAlive(owner.pid) && (await answers(dataDir))) return;
    // Our keeper is gone: it lost the race to another starter (then that one answers soon) or failed (say why).
    if (exited !== null && !(owner && pidAlive(owner.pid))) {
      const tail = fs.readFileSync(keeperLog(dataDir), 'utf8').trimEnd().split('\n').slice(-5).join('\n');
      throw new AppError('unavailable', `db: the embedded PostgreSQL of ${dataDir} did not start (see ${keeperLog(dataDir)}):\n${tail}`);
    }
    if (Date.now() > until) throw new AppError('unavailable', `db: the embedded PostgreSQL of ${dataDir} did not answer within ${timeoutMs / 1000} s (see ${keeperLog(dataDir)})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Whether the folder's recorded server accepts a connection. */
async function answers(dataDir: string): Promise<boolean> {
  let rec: { port: number; user: string; password: string };
  try { rec = JSON.parse(fs.readFileSync(path.join(dataDir, 'pg.json'), 'utf8')); } catch { return false; }
  const c = new pg.Client({ host: '127.0.0.1', port: rec.port, user: rec.user, password: rec.password, database: 'postgres', connectionTimeoutMillis: 2000 });
  try { await c.connect(); return true; } catch { return false; } finally { await c.end().catch(() => {}); /* a probe */ }
}

/**
 * Ask a keeper to stop its server and exit, and wait until it has.
 * @returns false when it was still alive after `timeoutMs`
 */
export async function stopKeeper(owner: OwnerRecord, timeoutMs = 60_000): Promise<boolean> {
  try { process.kill(owner.pid, 'SIGTERM'); } catch { return true; }
  const until = Date.now() + timeoutMs;
  while (pidAlive(owner.pid) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  return !pidAlive(owner.pid);
}

const clientsDir = (dataDir: string) => path.join(dataDir, 'pg.clients');

/**
 * Mark this process as a user of the folder's server until the returned
 * function is called (or the process is gone): a command between two
 * connections — loading an engine, reading a file — is not idle time, so the
 * keeper must not stop the server under it. Written before it connects.
 */
export function registerClient(dataDir: string): () => void {
  const file = path.join(clientsDir(dataDir), String(process.pid));
  try { fs.mkdirSync(clientsDir(dataDir), { recursive: true, mode: 0o700 }); fs.writeFileSync(file, ''); } catch { return () => {}; /* best effort: connections still count */ }
  return () => fs.rmSync(file, { force: true });
}

/** Processes registered as users of the server that still run (the records of those gone are removed). */
export function liveClients(dataDir: string): number {
  let n = 0;
  let names: string[] = [];
  try { names = fs.readdirSync(clientsDir(dataDir)); } catch { return 0; }
  for (const name of names) {
    if (pidAlive(Number(name))) n++;
    else fs.rmSync(path.join(clientsDir(dataDir), name), { force: true });
  }
  return n;
}

/**
 * Count the server's client connections other than the keeper's own probe:
 * with the registered commands, what decides that the server is idle.
 */
export async function clientConnections(client: pg.Client): Promise<number> {
  const r = await client.query(
    `select count(*)::int as n from pg_stat_activity where backend_type = 'client backend' and pid <> pg_backend_pid()`);
  return r.rows[0].n;
}
