import fs from 'node:fs';
import path from 'node:path';
import { AppError } from '../errors';
import { lit, type LakeAccess, type S3Settings } from './source-sql';
import type { QueryResult, Target } from './target';
import { startChdbHost, type ChdbHost } from './chdb-host';

/**
 * The embedded ClickHouse through chdb, hosted in a child process whose
 * working directory is the folder it may read lake files below (chdb-host.ts
 * says why).
 *
 * Measured with chdb 3.4 (ClickHouse 26.7): a state folder is locked by the
 * first process that opens it (`Cannot lock file <dir>/status. Another server
 * instance in same directory is already running`), and one process holds one
 * data directory at a time. So the session is shared by everything in this
 * process (reference-counted), closed when the last user lets go, and a
 * process that finds the folder locked waits for it: the worker's model jobs
 * and a CLI command then take turns instead of failing. The panel never
 * opens chdb; its previews run as jobs on the worker.
 */

/** The named collection holding an s3:// warehouse's keys in the embedded ClickHouse. */
export const S3_COLLECTION = 'tributary_lake_s3';

let shared: { dir: string; host: ChdbHost; users: number; keys?: Promise<void> & { of?: string } } | null = null;

let opening: Promise<void> | null = null;

export interface ChdbTargetOptions {
  /** chdb state folder (databases of the embedded ClickHouse). */
  stateDir: string;
  /** Database models are created in. (Default: models) */
  database?: string;
  /**
   * Working directory of the embedded ClickHouse's process: lake folders must lie below it
   * (for the lake, the warehouse folder: `chdbReadRoot`).
   */
  cwd: string;
  /** An s3:// warehouse's endpoint, region and keys (the env's `TRIBUTARY_S3_*` / `AWS_*`). (Default: none) */
  s3?: S3Settings;
  /** How long to wait for another process to release the state folder. (Default: 60000 ms) */
  lockWaitMs?: number;
  signal?: AbortSignal;
}

const below = (p: string, root: string) => { const r = path.relative(root, p); return !r.startsWith('..') && !path.isAbsolute(r); };

async function acquire(dir: string, cwd: string, waitMs: number, signal?: AbortSignal): Promise<ChdbHost> {
  while (opening) await opening;
  if (shared) {
    if (shared.dir !== dir) throw new AppError('conflict', `models: this process already has the embedded ClickHouse open on ${shared.dir}; one process holds one chdb state folder`);
    if (!below(cwd, shared.host.cwd)) throw new AppError('conflict', `models: this process's embedded ClickHouse reads below ${shared.host.cwd}, not ${cwd}; one process reads below one folder`);
    shared.users++;
    return shared.host;
  }
  let done!: () => void;
  opening = new Promise((r) => { done = r; });
  const host = startChdbHost(cwd);
  try {
    fs.mkdirSync(dir, { recursive: true });
    const deadline = Date.now() + waitMs;
    for (;;) {
      try {
        await host.open(dir);
        await dropStaleKeys(host, dir);
        // Models run with union_default_mode = 'DISTINCT' (session-settings.ts), in their own SETTINGS;
        // EXPLAIN AST (the allow-list's parse) takes none, and without it refuses a bare UNION.
        // It only makes a bare UNION mean UNION DISTINCT, as in SQL, where it would fail.
        await host.query("SET union_default_mode = 'DISTINCT'", 'Null');
        shared = { dir, host, users: 1 };
        return host;
      } catch (e) {
        const text = `${(e as Error).message} ${((e as Error).cause as Error | undefined)?.message ?? ''}`;
        const locked = /Cannot lock file|already running|Failed to create connection/i.test(text);
        if (!locked || Date.now() > deadline || signal?.aborted) {
          await host.close();
          throw new AppError(locked ? 'conflict' : 'fatal', locked
            ? `models: the embedded ClickHouse state folder ${dir} is held by another process (a worker running a models job?) and was not released within ${Math.round(waitMs / 1000)}s`
            : `models: cannot open the embedded ClickHouse in ${dir}: ${text.trim()}`, { cause: e });
        }
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  } finally { opening = null; done(); }
}

async function release(): Promise<void> {
  if (!shared) return;
  shared.users--;
  if (shared.users <= 0) {
    const h = shared.host; const keyed = !!shared.keys; shared = null;
    // the keys stay on disk (named_collections/) only while a session uses them
    if (keyed) { try { await h.query(`DROP NAMED COLLECTION IF EXISTS ${S3_COLLECTION}`, 'Null'); } catch { /* closing anyway */ } }
    await h.close();
  }
}

/**
 * The folder the embedded ClickHouse reads below: a file:// warehouse's root
 * (views then hold absolute paths inside it, the same for every worker and
 * the CLI whatever folder they started in); for an s3:// warehouse, which it
 * reads over HTTP, its own state folder.
 */
export function chdbReadRoot(warehouse: string, stateDir: string): string {
  if (/^s3a?:\/\//.test(warehouse)) return stateDir;
  return warehouse.startsWith('file://') ? decodeURIComponent(new URL(warehouse).pathname) : path.resolve(warehouse);
}

/**
 * How the embedded ClickHouse reads the lake: absolute folders below `root`
 * (the working directory of its process); an s3:// warehouse at its endpoint,
 * its keys through the named collection (so rendered SQL, which model results
 * and the compile preview show, holds none).
 */
export function chdbLakeAccess(root: string, s3?: S3Settings): LakeAccess {
  if (!s3) return { mode: 'absolute', within: root };
  const { accessKeyId, secretAccessKey, ...rest } = s3;
  return { mode: 'absolute', within: root, s3: accessKeyId && secretAccessKey ? { ...rest, collection: S3_COLLECTION } : rest };
}

/**
 * The folder where ClickHouse keeps named collections (`<state>/named_collections`,
 * one `<name>.sql` per collection, the keys in clear): created or narrowed to
 * 0700 before the keys are written, so no other local user can read them.
 */
function lockCollectionsFolder(stateDir: string): string {
  const folder = path.join(stateDir, 'named_collections');
  fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
  fs.chmodSync(folder, 0o700);
  return folder;
}

/** The keys' collection file a process that died while holding it left behind. */
async function dropStaleKeys(host: ChdbHost, stateDir: string): Promise<void> {
  if (!fs.existsSync(path.join(stateDir, 'named_collections', `${S3_COLLECTION}.sql`))) return;
  try { await host.query(`DROP NAMED COLLECTION IF EXISTS ${S3_COLLECTION}`, 'Null'); } catch { /* the next ensureKeys drops it too */ }
}

/** (Re)create the keys' named collection once per session and set of keys. */
async function ensureKeys(s3: S3Settings | undefined, signal?: AbortSignal): Promise<void> {
  if (!shared || !s3?.accessKeyId || !s3.secretAccessKey) return;
  const of = `${s3.accessKeyId}\0${s3.secretAccessKey}`;
  if (shared.keys?.of !== of) {
    const host = shared.host;
    const dir = shared.dir;
    const p: Promise<void> & { of?: string } = (async () => {
      // a collection left by an earlier session may hold other keys
      await host.query(`DROP NAMED COLLECTION IF EXISTS ${S3_COLLECTION}`, 'Null', signal);
      const folder = lockCollectionsFolder(dir);
      await host.query(`CREATE NAMED COLLECTION ${S3_COLLECTION} AS access_key_id = ${lit(s3.accessKeyId!)}, secret_access_key = ${lit(s3.secretAccessKey!)}`, 'Null', signal);
      // ClickHouse writes the file 0644 (the folder, 0700 above, already keeps others out)
      for (const f of fs.readdirSync(folder)) fs.chmodSync(path.join(folder, f), 0o600);
    })();
    p.of = of;
    shared.keys = p;
    p.catch(() => { if (shared?.keys === p) shared.keys = undefined; });
  }
  try { await shared.keys; } catch (e) { throw new AppError('fatal', `models: cannot store the s3 warehouse's keys in the embedded ClickHouse: ${(e as Error).message.split('\n')[0]}`, { cause: e }); }
}

export async function openChdbTarget(opts: ChdbTargetOptions): Promise<Target> {
  const cwd = path.resolve(opts.cwd);
  // absolute: the session opens in a process with another working directory
  const host = await acquire(path.resolve(opts.stateDir), cwd, opts.lockWaitMs ?? 60_000, opts.signal);
  try { await ensureKeys(opts.s3, opts.signal); } catch (e) { await release(); throw e; }
  const database = opts.database ?? 'models';
  let closed = false;
  const lake = chdbLakeAccess(cwd, opts.s3);
  const wrap = (e: unknown, sql: string) => new AppError('validation', `models: ClickHouse: ${((e as Error).message ?? String(e)).replace(/^Query failed:\s*/, '').split('\n')[0]}`, { cause: Object.assign(new Error(sql), { cause: e }) });
  return {
    kind: 'chdb', database, lake,
    async command(sql, signal) {
      try { await host.query(sql, 'Null', signal); } catch (e) { throw wrap(e, sql); }
    },
    async query(sql, signal) {
      try {
        const j = JSON.parse(await host.query(sql, 'JSON', signal)) as { meta: { name: string; type: string }[]; data: Record<string, unknown>[] };
        return { columns: j.meta, rows: j.data };
      } catch (e) {
        // Measured with chdb 3.x: a query that fails after its output began (a time or memory
        // limit) leaves that output to be prepended to the session's next result, which then
        // is not JSON. A throw-away query takes it.
        try { await host.query('SELECT 1', 'Null'); } catch { /* the error below is the one to report */ }
        throw wrap(e, sql);
      }
    },
    async explainAst(sql, signal) {
      try {
        return (await host.query(`EXPLAIN AST ${sql}`, 'TabSeparatedRaw', signal)).replace(/\n$/, '').split('\n');
      } catch (e) { throw wrap(e, sql); }
    },
    async close() { if (!closed) { closed = true; await release(); } },
  };
}
