import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScratchDatabase, createTestDatabase, type TestDatabase } from '../../testing/pg';
import { Command } from 'commander';
import { createConnection } from '../../connections';
import { registerPlanningCommands } from './cli';
import { testCliEdge } from '../../testing/cli-edge';
import { exitCodeFor } from '../../errors';
import { parseQueryfile } from './queryfile';

const SECRET = 'x'.repeat(32);
const BIN = path.resolve(import.meta.dirname, '../../../bin/tributary.mjs');

let src: { url: string; drop(): Promise<void> };
let db: TestDatabase;
let dir: string;

/**
 * Run `slices <args>` in this process (a fresh commander program handed the
 * settings `env` describes, stdout/stderr captured): spawning tsx per case
 * costs ~10 s on a busy box. A bad setting fails as `main()` reports it.
 */
async function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const cwd = process.cwd();
  const out: string[] = [];
  const err: string[] = [];
  const ow = process.stdout.write.bind(process.stdout);
  const ew = process.stderr.write.bind(process.stderr);
  process.exitCode = 0;
  process.chdir(dir);
  (process.stdout as { write: unknown }).write = (c: string) => { out.push(String(c)); return true; };
  (process.stderr as { write: unknown }).write = (c: string) => { err.push(String(c)); return true; };
  let code = 0;
  try {
    const slices = new Command('slices').exitOverride();
    registerPlanningCommands(slices, testCliEdge({ DATABASE_URL: db.url, TRIBUTARY_DATA_DIR: path.join(dir, 'data'), TRIBUTARY_SECRET: SECRET, LOG_LEVEL: 'warn', ...env }));
    await slices.parseAsync(['node', 'slices', ...args]);
    code = Number(process.exitCode ?? 0);
  } catch (e) {
    err.push(`error: ${(e as Error).message}\n`);
    code = Number(process.exitCode || exitCodeFor(e));
  } finally {
    process.stdout.write = ow;
    process.stderr.write = ew;
    process.chdir(cwd);
    process.exitCode = 0;
  }
  return { code, stdout: out.join(''), stderr: err.join('') };
}

/** The real binary, for one end-to-end check that the commands hang under `tributary slices`. */
function bin(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, 'slices', ...args], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATABASE_URL: db.url, TRIBUTARY_DATA_DIR: path.join(dir, 'data'), TRIBUTARY_SECRET: SECRET, NODE_ENV: "test", ...env } as NodeJS.ProcessEnv,
      timeout: 120_000,
      encoding: 'utf8',
    }, (err: (Error & { code?: unknown }) | null, stdout: string, stderr: string) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }));
  });
}

beforeAll(async () => {
  src = await createScratchDatabase('src');
  const c = new pg.Client({ connectionString: src.url });
  await c.connect();
  await c.query(`CREATE TABLE public.orders (id bigint PRIMARY KEY, placed date NOT NULL, total numeric);
    INSERT INTO public.orders SELECT g, date '2022-01-01' + (g % 700), g / 7.0 FROM generate_series(1, 50000) g;
    CREATE INDEX orders_placed_idx ON public.orders (placed); ANALYZE public.orders;`);
  await c.end();
  db = await createTestDatabase();
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'slices-cli-'));
  await fs.writeFile(path.join(dir, 'q.sql'), 'SELECT o.id, o.placed, o.total\nFROM public.orders o\nWHERE o.total >= 0\nAND ~SPLIT~\n');
  await fs.writeFile(path.join(dir, 'bad.sql'), 'SELECT o.* FROM public.orders o WHERE ~SPLIT~|PUBLIC.ORDERS_TGT\n');
});
afterAll(async () => {
  await db?.drop();
  await src?.drop();
  await fs.rm(dir, { recursive: true, force: true });
});

describe('tributary slices probe | split | assort', () => {
  it('bad flags give the seed one-line messages and exit 2', async () => {
    const base = ['split', '--query-file', 'q.sql', '--source-url', 'postgres://u@127.0.0.1:1/x'];
    const cases: [string[], string, Record<string, string>?][] = [
      [[...base, '--table', 'CM_CASES', '--target', 'PUBLIC.T', '--chunks', '4'], "✗ --table must be OWNER.TABLE, got 'CM_CASES'"],
      [[...base, '--table', 'public.orders', '--target', 'T', '--chunks', '4'], "✗ --target must be OWNER.TABLE, got 'T'"],
      [[...base, '--table', 'public.orders', '--target', 'A.T|X', '--chunks', '4'], "✗ target must be non-empty and must not contain '|'"],
      [[...base, '--table', 'public.orders', '--target', 'A.T', '--chunks', '0'], 'argument --chunks: must be a positive integer (>= 1)'],
      [[...base, '--table', 'public.orders', '--target', 'A.T', '--chunks', 'x'], 'argument --chunks: must be a positive integer (>= 1)'],
      [[...base, '--table', 'public.orders', '--target', 'A.T', '--chunks', '4', '--alias', 'o;x'], '✗ invalid alias identifier'],
      [[...base, '--table', 'public.orders', '--target', 'A.T', '--chunks', '4', '--strategy', 'column', '--column', 'a b'], '✗ invalid column identifier'],
      [['split', '--query-file', 'bad.sql', '--table', 'public.orders', '--target', 'A.T', '--chunks', '2'], '✗ query template must not carry a |TARGET suffix'],
      [['probe', '--query-file', 'q.sql', '--table', 'public.orders', '--sample-rows', '-5'], 'argument --sample-rows: must be a positive integer (>= 1)'],
      [['probe', '--query-file', 'q.sql', '--table', 'public.orders', '--target-slice-seconds', '0'], 'argument --target-slice-seconds: must be a positive integer (>= 1)'],
      [['probe', '--query-file', 'q.sql', '--table', 'public.orders', '--max-concurrency', 'abc'], 'argument --max-concurrency: must be a positive integer (>= 1)'],
      [['probe', '--query-file', 'q.sql', '--table', 'public.orders'], "PROBE_SAMPLE_ROWS must be an integer, got 'abc'", { PROBE_SAMPLE_ROWS: 'abc' }],
      [['probe', '--query-file', 'q.sql', '--table', 'public.orders', '--source-engine', 'postgres'], "SOURCE_PG_PORT must be an integer, got 'abc'", { SOURCE_PG_HOST: 'h', SOURCE_PG_DATABASE: 'd', SOURCE_PG_USER: 'u', SOURCE_PG_PORT: 'abc' }],
      [['probe', '--query-file', 'q.sql', '--table', 'public.orders', '--depth', 'deep'], "argument --depth: invalid choice: 'deep'"],
    ];
    const results = [];
    for (const [args, , env] of cases) results.push(await cli(args, env));
    results.forEach((r, i) => {
      expect(r.stderr.trim().split('\n')[0]).toContain(cases[i][1]);
      expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
      expect(r.code).toBe(2);
    });
  });

  it('split writes the queryfile, assorts, explains and registers the slices', async () => {
    const r = await cli(['split', '--query-file', 'q.sql', '--table', 'public.orders', '--target', 'PUBLIC.ORDERS_TGT', '--strategy', 'column', '--column', 'placed',
      '--chunks', '10', '--assort', '--wave-size', '3', '--explain', '--run-id', '41', '--source-url', src.url]);
    expect(r.stderr).not.toMatch(/error/i);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('wrote 10 slices to queryfile.txt (strategy column, placed)');
    expect(r.stdout).toMatch(/wave +1: slices 1, 5, 8/);
    expect(r.stdout).toMatch(/access path of slice 1: /);
    expect(r.stdout).toContain('registered 10 slices as NEW under run 41');
    const lines = parseQueryfile(await fs.readFile(path.join(dir, 'queryfile.txt'), 'utf8'));
    expect(lines).toHaveLength(10);
    expect(lines[0].sql).toMatch(/^SELECT o\.id, o\.placed, o\.total FROM public\.orders o WHERE o\.total >= 0 AND \(o\.placed < '[\d-]+'::date OR o\.placed IS NULL\)$/);
    expect(lines.every((l) => l.target === 'PUBLIC.ORDERS_TGT')).toBe(true);
    const rows = await db.pool.query(`SELECT roworder, status, query, slice_lo, slice_hi, slice_predicate FROM striim_orchestration WHERE uniquerunid = 41 AND iscurrentrow ORDER BY roworder`);
    expect(rows.rows.map((x) => x.query)).toEqual(lines.map((l) => l.sql));
    expect(rows.rows.every((x) => x.status === 'NEW')).toBe(true);
    expect(rows.rows[0].slice_lo).toBeNull();
    expect(rows.rows[0].slice_hi).toMatch(/::date$/);

    // the slices, run on the source, count every row exactly once
    const c = new pg.Client({ connectionString: src.url });
    await c.connect();
    let total = 0;
    for (const l of lines) total += Number((await c.query(`SELECT count(*) AS n FROM (${l.sql}) q`)).rows[0].n);
    await c.end();
    expect(total).toBe(50_000);

    const a = await bin(['assort', '--input', 'queryfile.txt', '--output', 'again.txt', '--wave-size', '2']);
    expect(a.code).toBe(0);
    expect(a.stdout).toContain('assorted 10 slices into 5 waves of up to 2:');
    expect(parseQueryfile(await fs.readFile(path.join(dir, 'again.txt'), 'utf8'))).toHaveLength(10);
  });

  it('split --chunks 1 without a run id writes 1=1 and registers nothing', async () => {
    const r = await cli(['split', '--query', 'select o.* from public.orders o', '--table', 'public.orders', '--target', 'A.T', '--strategy', 'rowid', '--chunks', '1', '--output', 'one.txt', '--source-engine', 'postgres', '--source-url', src.url]);
    expect(r.code).toBe(0);
    expect(await fs.readFile(path.join(dir, 'one.txt'), 'utf8')).toBe('select o.* from public.orders o WHERE 1=1|A.T\n');
    expect(r.stdout).toContain('not registered');
  });

  it('probe prints the panel and stores the recommendation in the run folder and the database', async () => {
    const r = await cli(['probe', '--query-file', 'q.sql', '--table', 'public.orders', '--depth', 'bakeoff', '--sample-rows', '5000', '--run-id', '41'],
      { SOURCE_DB_TYPE: 'postgres', SLICES_SOURCE_URL: src.url });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('PROBE RECOMMENDATION');
    expect(r.stdout).toMatch(/winner_MB_per_sec: \d+\.\d\d/);
    const rec = JSON.parse(await fs.readFile(path.join(dir, 'data', 'runs', '41', 'probe_recommendation.json'), 'utf8'));
    expect(rec).toMatchObject({ table: 'public.orders', depth: 'bakeoff', query_file: 'q.sql' });
    expect(rec.winner_MB_per_sec).toBeGreaterThan(0);
    const row = await db.pool.query('SELECT chunk_count, strategy FROM slice_probe_recommendations WHERE run_id = 41');
    expect(row.rows[0]).toEqual({ chunk_count: rec.chunk_count, strategy: rec.strategy });
  });

  it('--connection reads a source defined in Tributary; unknown names fail clearly', async () => {
    const u = new URL(src.url);
    await createConnection({ pool: db.pool, keys: { secret: SECRET, dataDir: path.join(dir, 'data') } }, {
      name: 'srcpg', kind: 'postgres',
      params: { host: u.hostname, port: Number(u.port), database: u.pathname.slice(1), user: decodeURIComponent(u.username) },
      secrets: { password: decodeURIComponent(u.password) },
    });
    const ok = await cli(['split', '--query-file', 'q.sql', '--table', 'public.orders', '--target', 'A.T', '--chunks', '3', '--connection', 'srcpg', '--output', 'c.txt']);
    expect(ok.stderr).not.toMatch(/error/i);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('wrote 3 slices to c.txt (strategy rowid, relpages)');
    const bad = await cli(['split', '--query-file', 'q.sql', '--table', 'public.orders', '--target', 'A.T', '--chunks', '3', '--connection', 'nope']);
    expect(bad.stderr).toContain("✗ connection 'nope' not found");
    expect(bad.code).toBe(2);
  });
});
