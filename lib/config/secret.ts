import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import type { Env } from './env';
import { AppError } from '../errors';

/**
 * Create the data folder (and its parents) private to the user running
 * Tributary: 0700, tightened when it already exists with looser bits. It holds
 * `secret.key`, the embedded database's password and the warehouse.
 *
 * The one exception: root running the embedded PostgreSQL, which then runs as
 * the `postgres` user and must traverse this folder to reach `pg/`. The folder
 * then belongs to the `postgres` group with mode 0710 (that group may pass
 * through, nobody else may even do that); only before the embedded server has
 * created its user (first start on a machine) is it 0711 for the moment.
 */
export function ensureDataDir(dataDir: string, opts: { embeddedPostgresAsRoot?: boolean } = {}): void {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const cur = fs.statSync(dataDir).mode & 0o777;
  let want: number;
  if (opts.embeddedPostgresAsRoot) {
    const gid = groupId('postgres');
    if (gid !== null) fs.chownSync(dataDir, process.getuid?.() ?? 0, gid);
    want = gid !== null ? 0o710 : 0o711;
  } else {
    // Other processes only take read and write away: a traverse bit set for a
    // running embedded server must stay, or that server loses its files.
    want = cur & ~0o066;
  }
  if (cur !== want) fs.chmodSync(dataDir, want);
}

/** A local group's id from /etc/group, or null. */
function groupId(name: string): number | null {
  try {
    const line = fs.readFileSync('/etc/group', 'utf8').split('\n').find((l) => l.startsWith(`${name}:`));
    const gid = line ? Number(line.split(':')[2]) : NaN;
    return Number.isInteger(gid) ? gid : null;
  } catch { return null; }
}

/** Write a file only its owner can read (0600), also when it already existed with looser bits. */
export function writeSecretFile(file: string, content: string, opts: { exclusive?: boolean } = {}): void {
  fs.writeFileSync(file, content, { mode: 0o600, flag: opts.exclusive ? 'wx' : 'w' });
  fs.chmodSync(file, 0o600);
}

/**
 * The installation secret — the ONE loader (sessions, connection-secret
 * encryption, CLI, worker, web): TRIBUTARY_SECRET, else `<dataDir>/secret.key`,
 * created once (mode 0600, 32 random bytes in base64url) so sessions and
 * encrypted connection secrets survive restarts. Created exclusively: two
 * starters agree on one key. Older files (hex, with a trailing newline) read the same.
 */
export function resolveSecret(env: Pick<Env, 'TRIBUTARY_SECRET' | 'dataDir'>): string {
  if (env.TRIBUTARY_SECRET) return env.TRIBUTARY_SECRET;
  const file = path.join(env.dataDir, 'secret.key');
  if (!fs.existsSync(file)) {
    ensureDataDir(env.dataDir);
    try {
      writeSecretFile(file, crypto.randomBytes(32).toString('base64url') + '\n', { exclusive: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
  const s = fs.readFileSync(file, 'utf8').trim();
  if (s.length < 16) throw new AppError('validation', `config: ${file} is shorter than 16 characters; delete it or set TRIBUTARY_SECRET`);
  return s;
}
