import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureEmbeddedPostgres, type EmbeddedHandle } from './embedded-postgres';
import { readOwner } from './data-folder-owner';
import { isDatabaseUnavailable } from '../errors/db-unavailable';

/**
 * The embedded PostgreSQL's owner supervises it: a postmaster that exits on
 * its own (fast shutdown, kill -9) is started again on the same port, and
 * clients that keep trying get in again with nobody acting. One owner per data
 * folder: a second exclusive starter is refused with the owner's pid and port.
 */
const dirs: string[] = [];
afterAll(() => { for (const d of dirs) fs.rmSync(d, { recursive: true, force: true }); });
const tmp = (p: string) => { const d = fs.mkdtempSync(path.join(os.tmpdir(), p)); dirs.push(d); return d; };
const postmasterPid = (dir: string) => Number(fs.readFileSync(path.join(dir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
const alive = (pid: number) => { try { process.kill(pid, 0); return true; } catch { return false; } };

async function tryQuery(url: string): Promise<unknown | null> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  c.on('error', () => {}); // a connection dropped under it: reported by the query below
  try { await c.connect(); await c.query('select 1'); return null; } catch (e) { return e; } finally { await c.end().catch(() => {}); }
}

/** Run a TypeScript snippet in a separate Node process (a second starter). */
function runChild(code: string): Promise<{ code: number | null; out: string; child: ReturnType<typeof spawn> }> {
  const dir = tmp('supervise-child-');
  const script = path.join(dir, 'child.mts');
  fs.writeFileSync(script, code);
  const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { out += d; });
  const done = new Promise<{ code: number | null; out: string; child: typeof child }>((r) => child.on('exit', (c) => r({ code: c, out, child })));
  return Object.assign(done, { child }) as never;
}
const launcher = JSON.stringify(path.resolve('lib/db/embedded-postgres.ts'));

describe('embedded PostgreSQL supervision', () => {
  it('restarts a postmaster stopped by SIGINT or killed by SIGKILL, on the same port', async () => {
    const dir = tmp('supervise-');
    const lines: string[] = [];
    const h: EmbeddedHandle = await ensureEmbeddedPostgres(dir, { database: 'postgres', exclusive: true, supervise: true, command: 'supervise test', restartDelayMs: 200, onSupervisor: (l, m) => lines.push(`${l} ${m}`) });
    try {
      expect(h.owned).toBe(true);
      expect(readOwner(dir)).toMatchObject({ pid: process.pid, port: h.port, command: 'supervise test' });
      for (const signal of ['SIGINT', 'SIGKILL'] as const) {
        const before = postmasterPid(dir);
        process.kill(before, signal);
        // Seen down (every failure a connection error), then up again with no one acting.
        const errors: unknown[] = [];
        const deadline = Date.now() + 30_000;
        let back = false;
        while (Date.now() < deadline) {
          const e = await tryQuery(h.url);
          if (e) errors.push(e);
          else if (!alive(before) && errors.length) { back = true; break; }
          await new Promise((r) => setTimeout(r, 50));
        }
        expect(back, `${signal}: ${lines.join('\n')}`).toBe(true);
        expect(errors.filter((e) => !isDatabaseUnavailable(e)).map(String)).toEqual([]);
        expect(postmasterPid(dir)).not.toBe(before);
        expect(lines.join('\n')).toMatch(signal === 'SIGKILL' ? /exited \(SIGKILL\); restarting it/ : /exited \(code 0, a shutdown this process did not ask for\); restarting it/);
        expect(lines.at(-1)).toMatch(/^info embedded PostgreSQL is back on 127\.0\.0\.1:\d+/);
      }
    } finally {
      await h.stop();
    }
    expect(readOwner(dir)).toBeNull();
  });

  it('keeps trying, with the reason, while a restart fails (its port taken), and comes back when it can', async () => {
    const dir = tmp('supervise-retry-');
    const lines: string[] = [];
    const h = await ensureEmbeddedPostgres(dir, { database: 'postgres', exclusive: true, supervise: true, restartDelayMs: 500, onSupervisor: (l, m) => lines.push(`${l} ${m}`) });
    const squatter = net.createServer();
    try {
      const pid = postmasterPid(dir);
      process.kill(pid, 'SIGKILL');
      // Take its port before the restart does.
      for (const until = Date.now() + 10_000; ;) {
        const ok = await new Promise<boolean>((r) => { squatter.once('error', () => r(false)); squatter.listen(h.port, '127.0.0.1', () => r(true)); });
        if (ok) break;
        if (Date.now() > until) throw new Error('the port did not come free');
        await new Promise((r) => setTimeout(r, 20));
      }
      for (const until = Date.now() + 30_000; !lines.some((l) => /did not start again \(attempt 1: .+\); next try in/.test(l));) {
        if (Date.now() > until) throw new Error(`no failed attempt reported:\n${lines.join('\n')}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      await new Promise<void>((r) => squatter.close(() => r()));
      for (const until = Date.now() + 60_000; (await tryQuery(h.url)) !== null;) {
        if (Date.now() > until) throw new Error(`not back:\n${lines.join('\n')}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(lines.at(-1)).toMatch(/^info embedded PostgreSQL is back on 127\.0\.0\.1:\d+/);
    } finally {
      if (squatter.listening) squatter.close();
      await h.stop();
    }
  });

  it('refuses a second exclusive starter with the owner\'s pid and port, and lets a one-shot client attach', async () => {
    const dir = tmp('supervise-owner-');
    const h = await ensureEmbeddedPostgres(dir, { database: 'postgres', exclusive: true, command: 'tributary serve' });
    try {
      const second = await runChild(`
        const { ensureEmbeddedPostgres } = await import(${launcher});
        try { await ensureEmbeddedPostgres(${JSON.stringify(dir)}, { database: 'postgres', exclusive: true }); console.log('STARTED'); }
        catch (e) { console.log('REFUSED ' + e.message); process.exitCode = 3; }
      `);
      expect(second.code, second.out).toBe(3);
      expect(second.out).toContain(`belongs to process ${process.pid} (tributary serve), listening on 127.0.0.1:${h.port}`);
      const client = await runChild(`
        const { ensureEmbeddedPostgres } = await import(${JSON.stringify(path.resolve('lib/db/embedded-postgres.ts'))});
        const c = await ensureEmbeddedPostgres(${JSON.stringify(dir)}, { database: 'postgres' });
        console.log('ATTACHED ' + JSON.stringify({ owned: c.owned, ownerPid: c.ownerPid, port: c.port }));
        await c.stop();
      `);
      expect(client.code, client.out).toBe(0);
      expect(client.out).toContain(`ATTACHED ${JSON.stringify({ owned: false, ownerPid: process.pid, port: h.port })}`);
      expect(await tryQuery(h.url)).toBeNull(); // the client's stop() left the owner's server alone
    } finally {
      await h.stop();
    }
  });

  it('takes over a folder whose owner was killed, stopping the server it left behind', async () => {
    const dir = tmp('supervise-orphan-');
    const first = runChild(`
      const { ensureEmbeddedPostgres } = await import(${launcher});
      const h = await ensureEmbeddedPostgres(${JSON.stringify(dir)}, { database: 'postgres', exclusive: true, command: 'doomed owner' });
      console.log('READY');
      setInterval(() => {}, 1000);
    `) as unknown as Promise<{ code: number | null; out: string }> & { child: ReturnType<typeof spawn> };
    const deadline = Date.now() + 120_000;
    while (!fs.existsSync(path.join(dir, 'pg', 'postmaster.pid')) || readOwner(dir)?.port === 0 || !readOwner(dir)) {
      if (Date.now() > deadline) throw new Error('the first owner did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
    const orphanOwner = readOwner(dir)!;
    while (await tryQuery(`postgres://x@127.0.0.1:${orphanOwner.port}/postgres`).then((e) => e && isDatabaseUnavailable(e))) {
      if (Date.now() > deadline) throw new Error('the first owner\'s server did not answer');
      await new Promise((r) => setTimeout(r, 100));
    }
    const orphan = postmasterPid(dir);
    first.child.kill('SIGKILL');
    await first;
    expect(alive(orphan)).toBe(true); // left behind, supervised by nobody
    const h = await ensureEmbeddedPostgres(dir, { database: 'postgres', exclusive: true, command: 'new owner' });
    try {
      expect(h.owned).toBe(true);
      expect(alive(orphan)).toBe(false);
      expect(readOwner(dir)).toMatchObject({ pid: process.pid, command: 'new owner' });
      expect(await tryQuery(h.url)).toBeNull();
    } finally {
      await h.stop();
    }
  });
});
