import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ensureDataDir, resolveSecret } from './secret';
import { loadSecret } from '../auth/secret';
import { deriveKey, loadKeyMaterial, open, seal } from '../connections/secret-box';

const dirs: string[] = [];
const tmp = () => { const d = fs.mkdtempSync(path.join(os.tmpdir(), 'trb-sec-')); dirs.push(d); return d; };
afterEach(() => { for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true }); });
const mode = (p: string) => fs.statSync(p).mode & 0o777;

describe('the one secret loader', () => {
  it('creates <data>/secret.key once, 0600, in a 0700 folder, and every entry point reads the same key', () => {
    const dataDir = path.join(tmp(), 'nested', 'data');
    // Sessions (lib/auth) first, then connections' key material, then the config loader.
    const a = loadSecret({ dataDir, TRIBUTARY_SECRET: undefined });
    const b = loadKeyMaterial({ dataDir });
    const c = resolveSecret({ dataDir, TRIBUTARY_SECRET: undefined });
    expect(a).toBe(b);
    expect(b).toBe(c);
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(mode(path.join(dataDir, 'secret.key'))).toBe(0o600);
    expect(mode(dataDir)).toBe(0o700);
    // A secret sealed through one entry point opens with the key of another.
    const sealed = seal(deriveKey(loadKeyMaterial({ dataDir })), { password: 'x' });
    expect(open(deriveKey(resolveSecret({ dataDir, TRIBUTARY_SECRET: undefined })), sealed)).toEqual({ password: 'x' });
  });

  it('reads older files (hex with a newline) the same way, and TRIBUTARY_SECRET wins everywhere', () => {
    const dataDir = tmp();
    fs.writeFileSync(path.join(dataDir, 'secret.key'), 'ab'.repeat(32) + '\n', { mode: 0o600 });
    expect(loadSecret({ dataDir, TRIBUTARY_SECRET: undefined })).toBe('ab'.repeat(32));
    expect(loadKeyMaterial({ dataDir })).toBe('ab'.repeat(32));
    expect(loadKeyMaterial({ dataDir, secret: 'from-env-0123456789' })).toBe('from-env-0123456789');
    expect(loadSecret({ dataDir, TRIBUTARY_SECRET: 'from-env-0123456789' })).toBe('from-env-0123456789');
  });

  it('tightens a data folder others could read, and keeps only the traverse bit the embedded server needs', () => {
    const dataDir = tmp();
    fs.chmodSync(dataDir, 0o755);
    ensureDataDir(dataDir);
    // read and write go; a traverse bit (set for a running embedded server) stays.
    expect(mode(dataDir)).toBe(0o711);
    if (process.getuid?.() === 0) {
      ensureDataDir(dataDir, { embeddedPostgresAsRoot: true });
      // The postgres group may traverse (0710) once the embedded server's user exists; before, anyone may (0711).
      const hasGroup = /^postgres:/m.test(fs.readFileSync('/etc/group', 'utf8'));
      expect(mode(dataDir)).toBe(hasGroup ? 0o710 : 0o711);
      ensureDataDir(dataDir);
      expect(mode(dataDir)).toBe(hasGroup ? 0o710 : 0o711);
    }
    const fresh = path.join(tmp(), 'fresh');
    ensureDataDir(fresh);
    expect(mode(fresh)).toBe(0o700);
  });
});
