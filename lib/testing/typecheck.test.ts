import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

// The panel build skips type-checking (next.config.mjs), so the whole project's
// types are checked here, once, as part of `npm test`.
describe('typescript', () => {
  it('the whole project type-checks (tsc --noEmit, strict)', () => {
    const root = path.resolve(import.meta.dirname, '../..');
    const r = spawnSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '--noEmit', '-p', root], { cwd: root, encoding: 'utf8' });
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);
  }, 300_000);
});
