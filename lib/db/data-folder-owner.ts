import fs from 'node:fs';
import path from 'node:path';
import { AppError } from '../errors';

/**
 * Who owns a data folder's embedded PostgreSQL: the one process that started
 * it, supervises it and stops it. Recorded in `<dataDir>/pg.owner.json`,
 * created exclusively (`wx`), so of two starters racing for a folder one wins
 * and the other sees the winner. A record whose process is gone (kill -9,
 * power loss) is stale and taken over by the next starter.
 */
export interface OwnerRecord {
  pid: number;
  /** The port its PostgreSQL listens on (127.0.0.1); 0 while it is still starting. */
  port: number;
  /** What the owner is, for the message a refused starter prints (`tributary serve`). */
  command: string;
  /** ISO time the owner took the folder. */
  since: string;
}

const ownerFile = (dataDir: string) => path.join(dataDir, 'pg.owner.json');

export function pidAlive(pid: number): boolean {
  try { process.kill(pid, 0); return true; } catch (e) { return (e as NodeJS.ErrnoException).code === 'EPERM'; }
}

/**
 * Whether the recorded owner still runs. A recycled pid held by something that
 * is not Node (the owner is always a Node process) does not count, where
 * /proc can tell.
 */
function ownerAlive(r: OwnerRecord): boolean {
  if (!pidAlive(r.pid)) return false;
  try { return /node|tributary/.test(fs.readFileSync(`/proc/${r.pid}/cmdline`, 'utf8')); } catch { return true; }
}

export function readOwner(dataDir: string): OwnerRecord | null {
  try { return JSON.parse(fs.readFileSync(ownerFile(dataDir), 'utf8')) as OwnerRecord; } catch { return null; }
}

/** The live owner other than this process, or null (no record, or a stale one). */
export function otherLiveOwner(dataDir: string): OwnerRecord | null {
  const r = readOwner(dataDir);
  return r && r.pid !== process.pid && ownerAlive(r) ? r : null;
}

/**
 * Take the folder for this process. Returns the live owner that holds it
 * instead, or null when this process owns it now. A stale record is removed
 * first; two starters removing it at once both retry the exclusive create,
 * and only one of them wins it.
 */
export function claimOwnership(dataDir: string, command: string): OwnerRecord | null {
  for (let attempt = 0; attempt < 5; attempt++) {
    const rec: OwnerRecord = { pid: process.pid, port: 0, command, since: new Date().toISOString() };
    try {
      fs.writeFileSync(ownerFile(dataDir), JSON.stringify(rec), { flag: 'wx', mode: 0o600 });
      return null;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const cur = readOwner(dataDir);
    if (cur && cur.pid === process.pid) return null;
    if (cur && ownerAlive(cur)) return cur;
    // Stale (or half-written by a starter that died): move it aside atomically, then retry the create.
    try { fs.renameSync(ownerFile(dataDir), `${ownerFile(dataDir)}.stale-${process.pid}`); fs.rmSync(`${ownerFile(dataDir)}.stale-${process.pid}`, { force: true }); } catch { /* another starter moved it first */ }
  }
  throw new AppError('conflict', `db: could not take ownership of ${dataDir} (its owner record keeps changing)`);
}

/** Record the port the owned server listens on (the refused starter's message names it). */
export function recordOwnerPort(dataDir: string, port: number): void {
  const r = readOwner(dataDir);
  if (!r || r.pid !== process.pid) return;
  fs.writeFileSync(ownerFile(dataDir), JSON.stringify({ ...r, port }), { mode: 0o600 });
}

/** Give the folder up (after the server stopped); only this process's own record is removed. */
export function releaseOwnership(dataDir: string): void {
  const r = readOwner(dataDir);
  if (r && r.pid === process.pid) fs.rmSync(ownerFile(dataDir), { force: true });
}
