import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENGINE_PACKAGES, runTraced } from '../lib/cli/testing/trace';

const ROOT = path.resolve(import.meta.dirname, '..');

describe('workers/jobs.ts', () => {
  it('is cheap to import: payload schemas only, no engine, no database driver', () => {
    const r = runTraced(['--import', 'tsx', '--input-type=module', '-e',
      "const m = await import('./workers/jobs.ts'); console.log(m.jobDefinitions.length);"], { cwd: ROOT });
    expect(r.status, r.stderr).toBe(0);
    expect(Number(r.stdout.trim())).toBeGreaterThan(10);
    expect(r.packages).toContain('zod');
    expect(r.packages.filter((p) => ENGINE_PACKAGES.includes(p))).toEqual([]);
  });
});
