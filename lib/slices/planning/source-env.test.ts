import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScratchDatabase, createTestDatabase, type TestDatabase } from '../../testing/pg';

/**
 * Issue 11's "done when": `tributary slices split` and `slices run --executor
 * native`, with only SOURCE_PG_HOST/_PORT/_DATABASE/_USER/_PASSWORD set,
 * work against a local Postgres without TLS (libpq's default sslmode=prefer
 * falls back to plain; node-pg alone would refuse).
 */
const BIN = path.resolve(import.meta.dirname, '../../../bin/tributary.mjs');

let src: { url: string; drop(): Promise<void> };
let tgt: { url: string; drop(): Promise<void> };
let db: TestDatabase;
let dir: string;

function tributary(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], {
      cwd: dir,
      // Tributary's own database and data folder, plus only the given variables: no SLICES_SOURCE_URL, no PGSSLMODE
      env: { PATH: process.env.PATH ?? '', HOME: dir, DATABASE_URL: db.url, TRIBUTARY_DATA_DIR: path.join(dir, 'data'), NODE_ENV: 'test', LOG_LEVEL: 'warn', ...env },
      timeout: 180_000,
      encoding: 'utf8',
    }, (err: (Error & { code?: unknown }) | null, stdout: string, stderr: string) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }));
  });
}

async function q(url: string, sql: string): Promise<Record<string, unknown>[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try { return (await c.query(sql)).rows; } finally { await c.end(); }
}

function sourcePgEnv(url: string): Record<string, string> {
  const u = new URL(url);
  return {
    SOURCE_PG_HOST: u.hostname, SOURCE_PG_PORT: u.port, SOURCE_PG_DATABASE: u.pathname.slice(1),
    SOURCE_PG_USER: decodeURIComponent(u.username), SOURCE_PG_PASSWORD: decodeURIComponent(u.password),
  };
}

beforeAll(async () => {
  src = await createScratchDatabase('srcenv');
  tgt = await createScratchDatabase('tgtenv');
  db = await createTestDatabase();
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'slices-env-'));
  await q(src.url, `CREATE TABLE public.orders (id bigint PRIMARY KEY, placed date NOT NULL, total numeric);
    INSERT INTO public.orders SELECT g, date '2022-01-01' + (g % 700), g / 7.0 FROM generate_series(1, 20000) g; ANALYZE public.orders;`);
  await q(tgt.url, 'CREATE TABLE public.orders_tgt (id bigint PRIMARY KEY, placed date NOT NULL, total numeric)');
  await fs.writeFile(path.join(dir, 'q.sql'), 'SELECT o.id, o.placed, o.total FROM public.orders o WHERE ~SPLIT~\n');
}, 60_000);

afterAll(async () => {
  await db?.drop();
  await src?.drop();
  await tgt?.drop();
  await fs.rm(dir, { recursive: true, force: true });
});

describe('slices with only SOURCE_PG_* against a Postgres without TLS', () => {
  it('split writes the queryfile and run --executor native copies every row', async () => {
    const env = sourcePgEnv(src.url);
    const split = await tributary(['slices', 'split', '--query-file', 'q.sql', '--table', 'public.orders', '--target', 'public.orders_tgt', '--chunks', '4', '--output', 'slices.txt'], env);
    expect(split.stderr).not.toMatch(/does not support SSL/);
    expect(split.code).toBe(0);
    const lines = (await fs.readFile(path.join(dir, 'slices.txt'), 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines.every((l) => l.endsWith('|public.orders_tgt'))).toBe(true);

    const run = await tributary(['slices', 'run', '--run-id', '7', '--executor', 'native', '--query-file', 'slices.txt', '--target-url', tgt.url,
      '--concurrency', '2', '--monitor-interval', '0.05', '--deploy-wait', '0'], env);
    expect(run.stderr).not.toMatch(/does not support SSL/);
    expect(run.code).toBe(0);
    const [a] = await q(src.url, 'SELECT count(*)::int AS n, sum(total)::text AS s FROM public.orders');
    const [b] = await q(tgt.url, 'SELECT count(*)::int AS n, sum(total)::text AS s FROM public.orders_tgt');
    expect(b).toEqual(a);
    // the watermark was captured from the source too (same connection path)
    const w = await q(db.url, 'SELECT watermark_label FROM slice_runs WHERE run_id = 7');
    expect(w[0]?.watermark_label).toBe('PostgreSQL WAL LSN');
  }, 240_000);

  it('SOURCE_PG_SSLMODE=require against the same server fails and says why', async () => {
    const r = await tributary(['slices', 'split', '--query-file', 'q.sql', '--table', 'public.orders', '--target', 'public.orders_tgt', '--chunks', '2', '--output', 'req.txt'],
      { ...sourcePgEnv(src.url), SOURCE_PG_SSLMODE: 'require' });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/sslmode=require needs TLS, but the server does not support SSL connections/);
  }, 120_000);
});
