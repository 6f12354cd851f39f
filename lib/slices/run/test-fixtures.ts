import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { resolveSettings, type RunFlags, type RunSettings } from './settings';

/** Test helpers shared by the slices tests (not part of the engine's API). */
export async function sql(url: string, text: string, params: unknown[] = []): Promise<Record<string, any>[]> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try { return (await c.query(text, params)).rows; } finally { await c.end(); }
}

export const SOURCE_DDL = `(id bigint primary key, grp int not null, amount numeric(12,2), note text, created_at timestamptz not null)`;

/** A source table of n rows built with generate_series (quotes and NULLs included). */
export async function makeSource(url: string, table: string, n: number): Promise<void> {
  await sql(url, `create table ${table} ${SOURCE_DDL};
    insert into ${table} select g, g % 97, round((g * 1.37)::numeric, 2), case when g % 10 = 0 then null else 'row ''' || g || '"' end,
      timestamptz '2024-01-01' + g * interval '1 second' from generate_series(1, ${n}) g;
    analyze ${table};`);
}

/** Queryfile text: n column-range slices over id in [1, rows]. */
export function queryFile(srcTable: string, target: string, rows: number, n: number): string {
  const step = Math.ceil(rows / n);
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const lo = 1 + i * step;
    const hi = lo + step;
    lines.push(`SELECT s.* FROM ${srcTable} s WHERE s.id >= ${lo} AND s.id < ${hi}|${target}`);
  }
  return lines.join('\n') + '\n';
}

export async function tmpDir(): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), 'slices-'));
}

/** Fast settings for tests: every wait in milliseconds. */
export function fastSettings(flags: RunFlags & { striimUrl?: string }, dataDir: string): RunSettings {
  return resolveSettings({ STRIIM_ADMIN_USER: 'admin', STRIIM_ADMIN_PWD: 'admin' }, {
    monitorInterval: 0.05, deployWait: 0, retryDelay: 0, backoffBase: 5, backoffMax: 50, concurrency: 4, ...flags,
  }, dataDir);
}

/** The default template with bigger batches, so 100k+ rows copy in seconds through the emulator. */
export function fastTemplate(base: string): string {
  return base.replace(/EventCount:100,/g, 'EventCount:2000,').replace('FetchSize: 100', 'FetchSize: 2000');
}
