// `npm start` lifecycle: SIGINT or SIGTERM stops web, worker and the embedded
// PostgreSQL — no process of that data folder survives — and the next start on
// the same folder is not blocked by a stale lock.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startStack } from './stack';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tributary-lifecycle-'));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

/** Pids of live processes started for this data folder (by argv or environment). */
function processesOf(dir: string): number[] {
  const out: number[] = [];
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e) || Number(e) === process.pid) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${e}/cmdline`, 'utf8');
      const env = fs.readFileSync(`/proc/${e}/environ`, 'utf8');
      const stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
      if (/\) Z /.test(stat)) continue; // zombie: already exited
      if (cmd.includes(dir) || env.split('\0').includes(`TRIBUTARY_DATA_DIR=${dir}`)) out.push(Number(e));
    } catch { /* gone meanwhile */ }
  }
  return out;
}

describe('serve lifecycle', () => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`${signal} stops web, worker and embedded Postgres; the next start on the same folder works`, async () => {
      const stack = await startStack({ admin: { name: 'admin', password: 'lifecycle-pass' }, dataDir, stopSignal: signal });
      const pgPid = Number(fs.readFileSync(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
      expect(processesOf(dataDir).length).toBeGreaterThanOrEqual(3); // serve, web, worker (+ postgres)
      await stack.stop();
      expect(stack.output()).toMatch(/stopping embedded PostgreSQL/);
      // The signal reached PostgreSQL too (one process group): a shutdown, not a fault to repair.
      expect(stack.output()).not.toMatch(/embedded PostgreSQL exited|restarting it/);
      const until = Date.now() + 10_000;
      while (processesOf(dataDir).length && Date.now() < until) await new Promise((r) => setTimeout(r, 200));
      expect(processesOf(dataDir)).toEqual([]);
      expect(() => process.kill(pgPid, 0)).toThrow();
      expect(fs.existsSync(path.join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);
      expect(fs.existsSync(path.join(dataDir, 'pg.owner.json'))).toBe(false); // the folder has no owner any more
      await expect(fetch(`${stack.baseUrl}/api/v1/health`)).rejects.toThrow();
    }, 900_000);
  }
});
