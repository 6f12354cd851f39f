import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../config/project-root';

/**
 * The embedded ClickHouse (chdb) in a child process of its own, whose working
 * directory is the folder it may read files below.
 *
 * Why a child: chdb (3.4, ClickHouse 26.7) lets `icebergLocal` read only below
 * the process's working directory, checked on every query against the cwd of
 * that moment (`File path … is not inside .`, PATH_ACCESS_DENIED); neither
 * `--user_files_path` nor a config file changes that check (measured). The
 * worker and the CLI keep their own cwd (the installation root: the render
 * child and other relative paths depend on it), and the data folder may be
 * anywhere (`TRIBUTARY_DATA_DIR=/var/lib/tributary`), so the session runs in a
 * process started in the warehouse folder, where views then hold absolute
 * paths that every worker can read again.
 *
 * One message at a time per id over Node's IPC channel; the child exits when
 * its parent goes (the IPC channel closes), so a killed worker leaves no
 * ClickHouse holding the state folder.
 */
export interface ChdbHost {
  /** Open the session on `dir` (its state folder); rejects with chdb's message (a held folder says so). */
  open(dir: string): Promise<void>;
  query(sql: string, format: string, signal?: AbortSignal): Promise<string>;
  /** Close the session and end the child. */
  close(): Promise<void>;
  readonly cwd: string;
}

// Plain CommonJS run with `node -e`: the child needs no TypeScript loader and no file of its own
// (the CLI runs from a bundle, the worker from sources).
const CHILD = `
const { Session, drainPending } = require(process.env.TRIBUTARY_CHDB_MODULE);
let session = null; const running = new Map();
const reply = (m) => { if (process.connected) process.send(m); };
const fail = (id, e) => reply({ id, ok: false, message: String((e && e.message) || e), cause: String((e && e.cause && e.cause.message) || '') });
process.on('message', async (m) => {
  try {
    if (m.op === 'open') { await drainPending(); session = new Session(m.dir); reply({ id: m.id, ok: true }); }
    else if (m.op === 'query') {
      const ac = new AbortController(); running.set(m.id, ac);
      try { const r = await session.queryAsync(m.sql, { format: m.format, signal: ac.signal }); reply({ id: m.id, ok: true, text: r.text() }); }
      finally { running.delete(m.id); }
    }
    else if (m.op === 'cancel') { const ac = running.get(m.target); if (ac) ac.abort(); }
    else if (m.op === 'close') { try { if (session) session.close(); } finally { session = null; reply({ id: m.id, ok: true }); process.disconnect(); } }
  } catch (e) { fail(m.id, e); }
});
process.on('disconnect', () => { try { if (session) session.close(); } catch {} process.exit(0); });
`;

let chdbModule: string | undefined;
function chdbModulePath(): string {
  chdbModule ??= createRequire(path.join(projectRoot(), 'package.json')).resolve('chdb');
  return chdbModule;
}

export function startChdbHost(cwd: string): ChdbHost {
  fs.mkdirSync(cwd, { recursive: true });
  const child: ChildProcess = spawn(process.execPath, ['-e', CHILD], {
    cwd, stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, TRIBUTARY_CHDB_MODULE: chdbModulePath() },
  });
  let next = 0; let exited: Error | null = null;
  const waiting = new Map<number, { resolve(m: Reply): void; reject(e: Error): void }>();
  type Reply = { id: number; ok: boolean; text?: string; message?: string; cause?: string };
  // The channel keeps the parent alive only while an answer is awaited: an idle child must not
  // hold a CLI command open after its work is done.
  const channel = (child as unknown as { channel?: { ref(): void; unref(): void } }).channel;
  const idle = () => { if (!waiting.size) channel?.unref(); };
  child.on('message', (m: Reply) => { const w = waiting.get(m.id); if (w) { waiting.delete(m.id); idle(); w.resolve(m); } });
  const gone = (e: Error) => { exited = e; for (const w of waiting.values()) w.reject(e); waiting.clear(); };
  child.on('exit', (code, sig) => gone(new Error(`models: the embedded ClickHouse process ended (${sig ?? `exit code ${code}`})`)));
  child.on('error', (e) => gone(e));
  child.unref();
  channel?.unref();

  const ask = (msg: Record<string, unknown>, signal?: AbortSignal): Promise<Reply> => new Promise((resolve, reject) => {
    if (exited) return reject(exited);
    const id = ++next;
    waiting.set(id, { resolve, reject });
    channel?.ref();
    child.send({ ...msg, id });
    if (signal) {
      const onAbort = () => { if (waiting.has(id) && !exited) child.send({ op: 'cancel', target: id, id: ++next }); };
      if (signal.aborted) onAbort(); else signal.addEventListener('abort', onAbort, { once: true });
    }
  });
  const check = (r: Reply): Reply => {
    if (r.ok) return r;
    throw Object.assign(new Error(r.message), r.cause ? { cause: new Error(r.cause) } : {});
  };
  return {
    cwd,
    async open(dir) { check(await ask({ op: 'open', dir })); },
    async query(sql, format, signal) { return check(await ask({ op: 'query', sql, format }, signal)).text ?? ''; },
    async close() {
      if (exited) return;
      const done = new Promise<void>((r) => child.once('exit', () => r()));
      // awaited: the process must stay up until the child has let go of the state folder
      child.ref();
      try { await ask({ op: 'close' }); } catch { /* ending anyway */ }
      if (!exited) child.kill();
      await done;
    },
  };
}
