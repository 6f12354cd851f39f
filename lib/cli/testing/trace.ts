import { spawnSync } from 'node:child_process';
import path from 'node:path';

const HOOK = path.join(import.meta.dirname, 'trace-loads.mjs');

/** Packages whose loading means an engine (or the database layer) was imported. */
export const ENGINE_PACKAGES = ['apache-arrow', 'parquet-wasm', 'oracledb', 'chdb', 'pg-boss', 'pg', '@prisma/client', '@prisma/adapter-pg', 'icebird', 'hyparquet', '@huggingface/jinja', '@clickhouse/client'];

/**
 * Run node with the load-tracing hook (lib/cli/testing/trace-loads.mjs): its
 * output, and every bare package specifier the process resolved (each once).
 */
export function runTraced(args: string[], opts: { cwd: string; env?: Record<string, string | undefined>; envOnly?: boolean }): { status: number | null; stdout: string; stderr: string; packages: string[] } {
  const r = spawnSync(process.execPath, ['--import', HOOK, ...args], {
    // envOnly: exactly `env` (a test's data folder must not meet the runner's DATABASE_URL), else added to this process's
    cwd: opts.cwd, encoding: 'utf8', env: (opts.envOnly ? opts.env : { ...process.env, ...opts.env }) as NodeJS.ProcessEnv, timeout: 120_000,
  });
  const packages = new Set<string>();
  const rest: string[] = [];
  for (const line of r.stderr.split('\n')) {
    const m = /^trace-load: (.+)$/.exec(line);
    if (!m) { rest.push(line); continue; }
    // The package's name: `@scope/name/sub` → `@scope/name`, `name/sub` → `name`.
    const parts = m[1].split('/');
    packages.add(m[1].startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]);
  }
  return { status: r.status, stdout: r.stdout, stderr: rest.join('\n'), packages: [...packages].sort() };
}
