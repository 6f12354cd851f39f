import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import type { Env } from './env';

/**
 * The installation secret: TRIBUTARY_SECRET, else `<dataDir>/secret.key`,
 * created once (mode 0600) so sessions and encrypted connection secrets
 * survive restarts. Created exclusively: two starters agree on one key.
 */
export function resolveSecret(env: Env): string {
  if (env.TRIBUTARY_SECRET) return env.TRIBUTARY_SECRET;
  const file = path.join(env.dataDir, 'secret.key');
  fs.mkdirSync(env.dataDir, { recursive: true });
  try {
    fs.writeFileSync(file, crypto.randomBytes(32).toString('base64url'), { flag: 'wx', mode: 0o600 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  const s = fs.readFileSync(file, 'utf8').trim();
  if (s.length < 16) throw new Error(`config: ${file} is shorter than 16 characters; delete it or set TRIBUTARY_SECRET`);
  return s;
}
