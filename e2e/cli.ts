import { execFile } from 'node:child_process';
import path from 'node:path';
import { ROOT } from './stack';

/**
 * `tributary …` as a child process, awaited without blocking this process.
 * Why not spawnSync: it freezes the test's event loop for the whole command
 * (seconds on a loaded machine), while the keep-alive sockets of its earlier
 * fetches to the served stack sit unattended; awaiting keeps the test process
 * as responsive as a user's script would be.
 */
export function tributary(args: string[], env: Record<string, string>): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(ROOT, 'bin/tributary.mjs'), ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, ...env } }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
      resolve({ status: code, stdout, stderr });
    });
  });
}
