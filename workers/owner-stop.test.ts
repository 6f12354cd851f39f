// One owner per data folder, the client side: a worker that shares the
// owner's database through DATABASE_URL (the way a refused starter is told to)
// is not left silently on a dead database when the owner stops — it says the
// database is unreachable and that claiming is paused, once, and resumes when
// a database answers there again. Two real processes: this one owns the
// embedded PostgreSQL, `tributary worker` is the client.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureEmbeddedPostgres } from '../lib/db/embedded-postgres';
import { waitFor } from '../lib/testing/wait-for';

const ROOT = path.resolve(import.meta.dirname, '..');
const dirs: string[] = [];
afterAll(() => { for (const d of dirs) fs.rmSync(d, { recursive: true, force: true }); });

describe('owner stops, client worker', () => {
  it('says the database is unreachable and claiming paused, and resumes when it is back', async () => {
    const ownerDir = fs.mkdtempSync(path.join(os.tmpdir(), 'owner-'));
    const workerDir = fs.mkdtempSync(path.join(os.tmpdir(), 'client-worker-'));
    dirs.push(ownerDir, workerDir);
    const owner = await ensureEmbeddedPostgres(ownerDir, { exclusive: true, command: 'test owner' });
    const env: Record<string, string | undefined> = {};
    for (const [k, v] of Object.entries(process.env)) if (!/^(VITEST|DATABASE_URL$|TRIBUTARY_|NODE_OPTIONS$)/.test(k)) env[k] = v;
    Object.assign(env, { DATABASE_URL: owner.url, TRIBUTARY_DATA_DIR: workerDir, TRIBUTARY_SECRET: 'owner-stop-test-secret-0123456789' });
    const worker = spawn(process.execPath, [path.join(ROOT, 'bin/tributary.mjs'), 'worker'], { cwd: ROOT, env: env as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    worker.stdout!.on('data', (d) => { out += d; });
    worker.stderr!.on('data', (d) => { out += d; });
    // A line the worker prints, within a deadline; a failure shows all it printed by then.
    const says = (line: RegExp, what: string) => waitFor(what, () => line.test(out), 180_000)
      .catch((e: Error) => { throw new Error(`${e.message}; the worker said:\n${out}`); });
    const exited = new Promise<number | null>((r) => worker.once('exit', (c) => r(c)));
    let again: Awaited<ReturnType<typeof ensureEmbeddedPostgres>> | null = null;
    try {
      await says(/worker started/, 'the worker to start');
      await owner.stop();
      await says(/database unreachable: claiming paused until it is back/, 'the worker to say claiming is paused');
      expect(worker.exitCode).toBeNull(); // still running, in a state it has named
      // The next owner of the folder starts the database on its last port: the client's URL works again.
      again = await ensureEmbeddedPostgres(ownerDir, { exclusive: true, command: 'test owner again' });
      expect(again.port).toBe(owner.port);
      await says(/database reachable again after \d+ s: claiming resumed/, 'the worker to resume');
      expect(out.match(/database unreachable: claiming paused/g)).toHaveLength(1);
      expect(out).not.toMatch(/^\s+at /m); // an expected condition: no stack trace
    } finally {
      worker.kill('SIGINT');
      await exited;
      await again?.stop();
    }
  }, 10 * 60_000);
});
