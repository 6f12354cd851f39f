import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Env } from '../config/env';

/**
 * The secret that signs sessions (and later encrypts connection secrets):
 * TRIBUTARY_SECRET, else `<data>/secret.key`, generated once (mode 600) so
 * that sessions survive restarts and every process of one data folder agrees.
 */
export function loadSecret(env: Pick<Env, 'TRIBUTARY_SECRET' | 'dataDir'>): string {
  if (env.TRIBUTARY_SECRET) return env.TRIBUTARY_SECRET;
  const file = path.join(env.dataDir, 'secret.key');
  try {
    const s = fs.readFileSync(file, 'utf8').trim();
    if (s.length >= 16) return s;
  } catch { /* not there yet */ }
  fs.mkdirSync(env.dataDir, { recursive: true });
  const secret = crypto.randomBytes(32).toString('base64url');
  try {
    // wx: when two processes race, the first file wins and both read it back.
    fs.writeFileSync(file, secret + '\n', { mode: 0o600, flag: 'wx' });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  return fs.readFileSync(file, 'utf8').trim();
}
