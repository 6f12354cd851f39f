// The application role's password file is created whole (issue #23): a starter
// racing the one creating it must never read it empty, since an empty password
// clears the role's password and locks the other processes out.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { appRolePassword } from './app-role';

const dirs: string[] = [];
afterEach(() => { for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true }); });
const folder = () => { const d = fs.mkdtempSync(path.join(os.tmpdir(), 'trb-app-pw-')); dirs.push(d); return d; };

describe('appRolePassword', () => {
  it('creates the file once (0600, no temporary file left) and every later call reads the same', () => {
    const d = folder();
    const a = appRolePassword(d);
    expect(a.length).toBeGreaterThanOrEqual(32);
    expect(appRolePassword(d)).toBe(a);
    expect(fs.statSync(path.join(d, 'pg-app.password')).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(d)).toEqual(['pg-app.password']);
  });

  it('refuses an empty file, naming it, instead of giving the role an empty password', () => {
    const d = folder();
    fs.writeFileSync(path.join(d, 'pg-app.password'), '\n', { mode: 0o600 });
    expect(() => appRolePassword(d)).toThrow(/pg-app\.password is empty; delete it/);
  });
});
