import fs from 'node:fs';
import path from 'node:path';
import { AppError } from '../errors';
import { lit, type LakeAccess, type S3Settings } from './source-sql';
import type { QueryResult, Target } from './target';

/**
 * The embedded ClickHouse, in-process through chdb.
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

type ChdbSession = {
  queryAsync(sql: string, opts?: { format?: string; signal?: AbortSignal }): Promise<{ text(): string; json<T>(): T }>;
  query(sql: string, format?: string): string;
  close(): void;
};

let shared: { dir: string; session: ChdbSession; users: number; keys?: Promise<void> & { of?: string } } | null = null;

let opening: Promise<void> | null = null;

export interface ChdbTargetOptions {
  /** chdb state folder (databases of the embedded ClickHouse). */
  stateDir: string;
  /** Database models are created in. (Default: models) */
  database?: string;
  /** The process's working directory: lake folders must lie below it. */
  cwd: string;
  /** An s3:// warehouse's endpoint, region and keys (the env's `TRIBUTARY_S3_*` / `AWS_*`). (Default: none) */
  s3?: S3Settings;
  /** How long to wait for another process to release the state folder. (Default: 60000 ms) */
  lockWaitMs?: number;
  signal?: AbortSignal;
}

async function acquire(dir: string, waitMs: number, signal?: AbortSignal): Promise<ChdbSession> {
  while (opening) await opening;
  if (shared) {
    if (shared.dir !== dir) throw new AppError('conflict', `models: this process already has the embedded ClickHouse open on ${shared.dir}; one process holds one chdb state folder`);
    shared.users++;
    return shared.session;
  }
  let done!: () => void;
  opening = new Promise((r) => { done = r; });
  try {
    fs.mkdirSync(dir, { recursive: true });
    const { Session, drainPending } = await import('chdb');
    // A cancelled query keeps computing natively; a new session must wait for it.
    await drainPending();
    const deadline = Date.now() + waitMs;
    for (;;) {
      try {
        const session = new Session(dir) as unknown as ChdbSession;
        dropStaleKeys(session, dir);
        // Models run with union_default_mode = 'DISTINCT' (session-settings.ts), in their own SETTINGS;
        // EXPLAIN AST (the allow-list's parse) takes none, and without it refuses a bare UNION.
        // It only makes a bare UNION mean UNION DISTINCT, as in SQL, where it would fail.
        session.query("SET union_default_mode = 'DISTINCT'", 'Null');
        shared = { dir, session, users: 1 };
        return session;
      } catch (e) {
        const text = `${(e as Error).message} ${((e as Error).cause as Error | undefined)?.message ?? ''}`;
        const locked = /Cannot lock file|already running|Failed to create connection/i.test(text);
        if (!locked || Date.now() > deadline || signal?.aborted) {
          throw new AppError(locked ? 'conflict' : 'fatal', locked
            ? `models: the embedded ClickHouse state folder ${dir} is held by another process (a worker running a models job?) and was not released within ${Math.round(waitMs / 1000)}s`
            : `models: cannot open the embedded ClickHouse in ${dir}: ${text.trim()}`, { cause: e });
        }
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  } finally { opening = null; done(); }
}

function release(): void {
  if (!shared) return;
  shared.users--;
  if (shared.users <= 0) {
    const s = shared.session; const keyed = !!shared.keys; shared = null;
    // the keys stay on disk (named_collections/) only while a session uses them
    if (keyed) { try { s.query(`DROP NAMED COLLECTION IF EXISTS ${S3_COLLECTION}`, 'Null'); } catch { /* closing anyway */ } }
    s.close();
  }
}

/**
 * How the embedded ClickHouse reads the lake: files below `cwd`; an s3://
 * warehouse at its endpoint, its keys through the named collection (so
 * rendered SQL, which model results and the compile preview show, holds none).
 */
export function chdbLakeAccess(cwd: string, s3?: S3Settings): LakeAccess {
  if (!s3) return { mode: 'relative', cwd };
  const { accessKeyId, secretAccessKey, ...rest } = s3;
  return { mode: 'relative', cwd, s3: accessKeyId && secretAccessKey ? { ...rest, collection: S3_COLLECTION } : rest };
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
function dropStaleKeys(session: ChdbSession, stateDir: string): void {
  if (!fs.existsSync(path.join(stateDir, 'named_collections', `${S3_COLLECTION}.sql`))) return;
  try { session.query(`DROP NAMED COLLECTION IF EXISTS ${S3_COLLECTION}`, 'Null'); } catch { /* the next ensureKeys drops it too */ }
}

/** (Re)create the keys' named collection once per session and set of keys. */
async function ensureKeys(s3: S3Settings | undefined, signal?: AbortSignal): Promise<void> {
  if (!shared || !s3?.accessKeyId || !s3.secretAccessKey) return;
  const of = `${s3.accessKeyId}\0${s3.secretAccessKey}`;
  if (shared.keys?.of !== of) {
    const session = shared.session;
    const dir = shared.dir;
    const p: Promise<void> & { of?: string } = (async () => {
      // a collection left by an earlier session may hold other keys
      await session.queryAsync(`DROP NAMED COLLECTION IF EXISTS ${S3_COLLECTION}`, { format: 'Null', signal });
      const folder = lockCollectionsFolder(dir);
      await session.queryAsync(`CREATE NAMED COLLECTION ${S3_COLLECTION} AS access_key_id = ${lit(s3.accessKeyId!)}, secret_access_key = ${lit(s3.secretAccessKey!)}`, { format: 'Null', signal });
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
  const session = await acquire(opts.stateDir, opts.lockWaitMs ?? 60_000, opts.signal);
  try { await ensureKeys(opts.s3, opts.signal); } catch (e) { release(); throw e; }
  const database = opts.database ?? 'models';
  let closed = false;
  const lake = chdbLakeAccess(opts.cwd, opts.s3);
  const wrap = (e: unknown, sql: string) => new AppError('validation', `models: ClickHouse: ${((e as Error).message ?? String(e)).replace(/^Query failed:\s*/, '').split('\n')[0]}`, { cause: Object.assign(new Error(sql), { cause: e }) });
  return {
    kind: 'chdb', database, lake,
    async command(sql, signal) {
      try { await session.queryAsync(sql, { format: 'Null', signal }); } catch (e) { throw wrap(e, sql); }
    },
    async query(sql, signal) {
      try {
        const r = await session.queryAsync(sql, { format: 'JSON', signal });
        const j = r.json<{ meta: { name: string; type: string }[]; data: Record<string, unknown>[] }>();
        return { columns: j.meta, rows: j.data };
      } catch (e) {
        // Measured with chdb 3.x: a query that fails after its output began (a time or memory
        // limit) leaves that output to be prepended to the session's next result, which then
        // is not JSON. A throw-away query takes it.
        try { await session.queryAsync('SELECT 1', { format: 'Null' }); } catch { /* the error below is the one to report */ }
        throw wrap(e, sql);
      }
    },
    async explainAst(sql, signal) {
      try {
        const r = await session.queryAsync(`EXPLAIN AST ${sql}`, { format: 'TabSeparatedRaw', signal });
        return r.text().replace(/\n$/, '').split('\n');
      } catch (e) { throw wrap(e, sql); }
    },
    async close() { if (!closed) { closed = true; release(); } },
  };
}
