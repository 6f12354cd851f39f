import { defineConfig } from 'vitest/config';
import path from 'node:path';

export default defineConfig({
  resolve: { alias: { '@': path.resolve(import.meta.dirname) } },
  test: {
    include: ['lib/**/*.test.ts', 'workers/**/*.test.ts', 'app/**/*.test.ts', 'e2e/**/*.test.ts'],
    globalSetup: ['lib/testing/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    // A hang guard, not a speed check: the integration tests start real databases, CLIs and
    // workers, and on a loaded two-core machine (CI beside other work) several take 110–160 s.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    teardownTimeout: 30_000,
    // expect.poll waits for something to happen (a page to update, a file to appear): on a loaded
    // two-core CI machine the default 1 s is too short; a deadline long enough never slows a pass.
    expect: { poll: { timeout: 30_000, interval: 100 } },
  },
});
