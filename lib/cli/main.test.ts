import fs from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS, commandNameOf } from './main';
import { buildCli, builtStamp, freshCliEntry } from './cli-build.mjs';
import { ENGINE_PACKAGES, runTraced } from './testing/trace';
import { testCliEdge } from '../testing/cli-edge';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/tributary.mjs');
const VERSION = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const ALL = COMMANDS.flatMap((m) => m.commands.map((c) => c.name));

describe('the command table', () => {
  it('names and describes exactly what each module registers, in order', async () => {
    for (const m of COMMANDS) {
      const program = new Command('tributary');
      (await m.load())(program, testCliEdge());
      expect(program.commands.map((c) => ({ name: c.name(), description: c.description() }))).toEqual(m.commands);
    }
    expect(new Set(ALL).size).toBe(ALL.length);
  });

  it('finds the command named in argv', () => {
    const a = (...args: string[]) => commandNameOf(['node', 'tributary', ...args]);
    expect(a()).toBeNull();
    expect(a('--help')).toBeNull();
    expect(a('-V')).toBeNull();
    expect(a('lake', 'list')).toBe('lake');
    expect(a('--help', 'slices')).toBe('slices');
    expect(a('help', 'dq')).toBe('dq');
    expect(a('help')).toBeNull();
  });
});

describe('the compiled CLI (dist/cli)', () => {
  beforeAll(async () => {
    if (!freshCliEntry(ROOT)) await buildCli(ROOT);
  }, 300_000);

  it('--help lists every top-level command without loading any engine', () => {
    const r = runTraced([BIN, '--help'], { cwd: ROOT });
    expect(r.status, r.stderr).toBe(0);
    for (const name of ALL) expect(r.stdout).toMatch(new RegExp(`^  ${name}\\s`, 'm'));
    // Only the argument parser: no engine, no database driver, not even the schemas (zod).
    expect(r.packages).toEqual(['commander']);
    expect(r.stdout).toMatch(/^  -V, --version\s+print the version and build$/m);
  });

  it('--version prints package.json\'s version and the build stamp', () => {
    const r = runTraced([BIN, '--version'], { cwd: ROOT });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(`tributary ${VERSION} (build ${builtStamp(ROOT)})`);
    // Printed before the argument parser loads (issue #23: ≤ 1.5× node -e 0): no package at all.
    expect(r.packages).toEqual([]);
    expect(runTraced([BIN, '-V'], { cwd: ROOT }).stdout).toBe(r.stdout);
  });

  it('<cmd> --help loads that command\'s module only', () => {
    const r = runTraced([BIN, 'connections', '--help'], { cwd: ROOT });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('Usage: tributary connections');
    expect(r.stdout).toMatch(/^\s+import\b/m);
    for (const p of ['apache-arrow', 'parquet-wasm', 'oracledb', 'chdb', '@huggingface/jinja', '@clickhouse/client']) expect(r.packages).not.toContain(p);
  });

  it('an unknown command is a usage error naming the nearest one', () => {
    const r = runTraced([BIN, 'lakes'], { cwd: ROOT });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("unknown command 'lakes'");
    expect(r.stderr).toContain('lake');
    expect(r.packages.filter((p) => ENGINE_PACKAGES.includes(p))).toEqual([]);
  });
});

describe('the CLI from its sources (tsx)', () => {
  it('--help and --version load no engine either', () => {
    const env = { TRIBUTARY_CLI_SOURCES: '1' };
    const help = runTraced([BIN, '--help'], { cwd: ROOT, env });
    expect(help.status, help.stderr).toBe(0);
    for (const name of ALL) expect(help.stdout).toMatch(new RegExp(`^  ${name}\\s`, 'm'));
    expect(help.packages.filter((p) => ENGINE_PACKAGES.includes(p) || p === 'zod')).toEqual([]);
    const v = runTraced([BIN, '--version'], { cwd: ROOT, env });
    expect(v.stdout.trim()).toBe(`tributary ${VERSION} (sources, not compiled)`);
  });
});
