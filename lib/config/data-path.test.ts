import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dataDirPaths, localPaths } from './data-path';

const base = fs.mkdtempSync(path.join(os.tmpdir(), 'data-path-'));
const data = path.join(base, 'data');
const outside = path.join(base, 'outside');
fs.mkdirSync(path.join(data, 'in'), { recursive: true });
fs.mkdirSync(outside);
fs.writeFileSync(path.join(data, 'in', 'tables.json'), '[]');
fs.writeFileSync(path.join(outside, 'secret.key'), 'top secret');
fs.symlinkSync(outside, path.join(data, 'escape'));
fs.symlinkSync(path.join(outside, 'secret.key'), path.join(data, 'key-link'));
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

const policy = dataDirPaths(data);
const refused = /params\.f: ".*" must be a path under the data folder/;

describe('job paths', () => {
  it('resolve inside the data folder, relative or absolute', async () => {
    const real = fs.realpathSync(path.join(data, 'in', 'tables.json'));
    await expect(policy('params.f', 'in/tables.json', 'read')).resolves.toBe(real);
    await expect(policy('params.f', path.join(data, 'in', 'tables.json'), 'read')).resolves.toBe(real);
    await expect(policy('params.f', 'in/new/folder', 'write')).resolves.toBe(path.join(fs.realpathSync(data), 'in', 'new', 'folder'));
  });

  it.each([
    ['a traversal', '../outside/secret.key'],
    ['a traversal that comes back', 'in/../../data/../outside/secret.key'],
    ['an absolute path outside', path.join(outside, 'secret.key')],
    ['/etc/passwd', '/etc/passwd'],
    ['a symlinked folder leading out', 'escape/secret.key'],
    ['a symlinked file leading out', 'key-link'],
    ['a NUL byte', 'in/tables.json\0.png'],
  ])('refuse %s with one message naming the field', async (_what, p) => {
    await expect(policy('params.f', p, 'read')).rejects.toThrow(refused);
  });

  it.each(['secret.key', 'pg.json', 'pg.owner.json', 'pg/postmaster.pid', 'pg-app.password', 'models/tables.yml', 'models/seeds', 'chdb/status', 'chdb/../pg-app.password'])('refuse the folder\'s own state and the models project: %s', async (p) => {
    await expect(policy('params.f', p, 'read')).rejects.toThrow(refused);
    await expect(policy('params.f', p, 'write')).rejects.toThrow(refused);
  });

  it('refuse writing under a symlink that leads out, even into a folder yet to exist', async () => {
    await expect(policy('params.f', 'escape/new/dir', 'write')).rejects.toThrow(refused);
  });

  it('say the same for a missing file outside as for an existing one (no existence probe)', async () => {
    // the same words apart from the echoed value itself
    const a = await policy('params.f', path.join(outside, 'secret.key'), 'read').catch((e) => e.message.replace('secret.key', 'X'));
    const b = await policy('params.f', path.join(outside, 'nope.key'), 'read').catch((e) => e.message.replace('nope.key', 'X'));
    expect(a).toBe(b);
  });

  it('the CLI passes paths through as given', async () => {
    await expect(localPaths('--tables-file', '../x.json', 'read')).resolves.toBe('../x.json');
  });
});
