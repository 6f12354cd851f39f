import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALIVE_MS, watchChild } from './serve-child.mjs';

// serve's children (web, worker) over the IPC channel serve opens: real processes.
const MOD = path.resolve('lib/cli/serve-child.mjs');
const CHILD = `import { followServe } from ${JSON.stringify(MOD)}; followServe();
process.on('SIGTERM', () => { console.log('SIGTERM'); process.exit(0); });
setInterval(() => {}, 1000);`;

const alive = (pid: number) => { try { process.kill(pid, 0); return true; } catch { return false; } };

describe('followServe', () => {
  it('says it is alive, and stops as if sent SIGTERM when the channel closes', async () => {
    const c = spawn(process.execPath, ['--input-type=module', '-e', CHILD], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
    let out = '';
    c.stdout!.on('data', (d) => { out += d; });
    const msg = await new Promise<unknown>((resolve) => c.once('message', resolve));
    expect(msg).toMatchObject({ alive: expect.any(Number) });
    const exited = new Promise<number | null>((resolve) => c.once('exit', resolve));
    c.disconnect();
    expect(await exited).toBe(0);
    expect(out).toContain('SIGTERM');
  }, ALIVE_MS + 10_000);

  it('a child whose serve was killed (kill -9) does not outlive it', async () => {
    // the middle process stands for serve: it starts the child with a channel, prints its pid, and is killed
    const SERVE = `const { spawn } = require('node:child_process');
const c = spawn(process.execPath, ['--input-type=module', '-e', ${JSON.stringify(CHILD)}], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
c.once('message', () => console.log(c.pid));
setInterval(() => {}, 1000);`;
    const serve = spawn(process.execPath, ['-e', SERVE], { stdio: ['ignore', 'pipe', 'inherit'] });
    const pid = Number(await new Promise<string>((resolve) => serve.stdout!.once('data', (d) => resolve(String(d).trim()))));
    expect(alive(pid)).toBe(true);
    serve.kill('SIGKILL');
    const until = Date.now() + 12_000;
    while (alive(pid) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    expect(alive(pid)).toBe(false);
  }, ALIVE_MS + 20_000);

  it('a process started without a channel is left alone', async () => {
    const c = spawn(process.execPath, ['--input-type=module', '-e', `${CHILD}\nsetTimeout(() => { console.log('still here'); process.exit(3); }, 300);`], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    c.stdout!.on('data', (d) => { out += d; });
    expect(await new Promise((resolve) => c.once('exit', resolve))).toBe(3);
    expect(out).toContain('still here');
  });
});

describe('watchChild', () => {
  it('reports a child whose main thread stopped turning, once; a live child is not reported', async () => {
    const spin = spawn(process.execPath, ['--input-type=module', '-e', `import { followServe } from ${JSON.stringify(MOD)}; followServe(); process.once('message', () => { for (;;); });`], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const fine = spawn(process.execPath, ['--input-type=module', '-e', CHILD], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    try {
      const reports: string[] = [];
      // sign-of-life checks every 200 ms, stuck after 1.5 s of silence (serve: 60 s); the live child sends one every ALIVE_MS
      const stop = watchChild(fine, 2 * ALIVE_MS + 1500, () => reports.push('fine'), 200);
      const stuck = new Promise<number>((resolve) => watchChild(spin, 1500, (ms) => { reports.push('spin'); resolve(ms); }, 200));
      spin.send('spin now');
      expect(await stuck).toBeGreaterThan(1500);
      await new Promise((r) => setTimeout(r, ALIVE_MS + 2500));
      expect(reports).toEqual(['spin']);
      stop();
    } finally { spin.kill('SIGKILL'); fine.kill('SIGKILL'); }
  }, 3 * ALIVE_MS + 10_000);
});
