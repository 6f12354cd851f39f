import { execFile } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScratchDatabase, createTestDatabase, type TestDatabase } from '../testing/pg';
import { silentLogger } from '../log';
import { openLake } from '../lake';
import { createPostgresSource } from '../sources';
import { createConnection } from '../connections';
import { parseTablesConfig } from '../config/tables-json';
import { DEFAULT_SETTINGS, lakeTarget, runEtl } from '../etl';
import { FIXTURE_TABLES, queryBranch, seedBranch } from '../testing/branch-fixtures';
import { dqOptionsFromFlags } from './cli';

// `tributary dq` as an operator runs it: a real process on a real database,
// branches from the connection records, tables from a tables.json file.
let db: TestDatabase;
let dir: string;
const scratch: { url: string; drop(): Promise<void> }[] = [];
const SECRET = 'dq-cli-test-secret-0123456789abcdef';
const ROOT = path.resolve(import.meta.dirname, '../..');
let env: NodeJS.ProcessEnv;

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(ROOT, 'bin/tributary.mjs'), 'dq', ...args], { cwd: dir, env, timeout: 120_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}
const sql = (i: number, text: string) => queryBranch(scratch[i].url, text);

beforeAll(async () => {
  db = await createTestDatabase();
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-cli-'));
  const warehouse = path.join(dir, 'warehouse');
  env = { ...process.env, DATABASE_URL: db.url, TRIBUTARY_DATA_DIR: path.join(dir, 'data'), TRIBUTARY_WAREHOUSE: `file://${warehouse}`, TRIBUTARY_SECRET: SECRET, LOG_LEVEL: 'error' };
  const entries = FIXTURE_TABLES.filter((t) => ['OASIS.ORDERS', 'OASIS.CUSTOMERS'].includes(t.table));
  await fs.writeFile(path.join(dir, 'tables.json'), JSON.stringify(entries, null, 2));
  for (let i = 0; i < 2; i++) {
    const s = await createScratchDatabase('dqcli');
    scratch.push(s);
    await seedBranch(s.url, { index: i, customers: 20, orders: 150 });
    await createConnection({ pool: db.pool, keys: { secret: SECRET, dataDir: path.join(dir, 'data') } }, {
      name: `branch-${i}`, kind: 'postgres', isBranch: true, branchKey: `br${i}`, secrets: { url: s.url },
    });
  }
  const branches = scratch.map((s, i) => ({ key: `br${i}`, source: createPostgresSource({ branch: `br${i}`, connectionString: s.url, poolSize: 1 }) }));
  try {
    const r = await runEtl({
      pool: db.pool, target: lakeTarget(openLake({ pool: db.pool, warehouse }), { namespace: 'etl' }), branches, tables: parseTablesConfig(entries),
      settings: { ...DEFAULT_SETTINGS, mode: 'INITIAL', retries: 0 }, logger: silentLogger, stagingRoot: path.join(dir, 'staging'),
    });
    expect(r.ok).toBe(true);
  } finally { await Promise.all(branches.map((b) => b.source.close())); }
});

afterAll(async () => {
  for (const s of scratch) await s.drop();
  await db.drop();
  await fs.rm(dir, { recursive: true, force: true });
});

describe('tributary dq', () => {
  it('validates flags with one-line errors naming the flag', () => {
    expect(() => dqOptionsFromFlags({ tablesFile: 't', hash: true, write: true, since: '2026-02-30' })).toThrow(/^--since: not a calendar date/);
    expect(() => dqOptionsFromFlags({ tablesFile: 't', hash: true, write: true, since: '2026-05-01', until: '2026-01-01' })).toThrow(/^--until: /);
    expect(() => dqOptionsFromFlags({ tablesFile: 't', hash: false, write: true, repair: true })).toThrow(/^--repair: /);
    expect(() => dqOptionsFromFlags({ tablesFile: 't', hash: true, write: true, examples: 'x' })).toThrow(/^--examples: /);
    expect(dqOptionsFromFlags({ tablesFile: 't', hash: true, write: true, repairDeletes: true })).toMatchObject({ repair: true, repairDeletes: true });
  });

  it('OK after load; MISMATCH with the keys after a quiet change and a source delete; repair brings it back to OK', async () => {
    const ok = await cli(['--since', '2023-01-01', '--json', '--csv', 'out']);
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    const j0 = JSON.parse(ok.stdout);
    expect(j0.results).toHaveLength(4);
    expect(j0.results.every((r: { status: string }) => r.status === 'OK')).toBe(true);
    expect(await fs.readFile(path.join(dir, j0.csv), 'utf8')).toMatch(/^pipeline_run_id,table_name,branch_id,/);

    await sql(1, `UPDATE oasis.orders SET amount = amount + 1 WHERE order_id = 33`); // CDC column not moved
    await sql(1, `DELETE FROM oasis.orders WHERE order_id = 44`);
    const bad = await cli(['--since', '2023-01-01', '--branch', 'br1', '--tables', 'orders']);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/orders\s+br1\s+MISMATCH/);
    expect(bad.stdout).toContain('only in lake:   {"order_id":"44"}');
    expect(bad.stdout).toContain('mismatch:       {"order_id":"33"} [amount]');
    // the run as recorded (the Runs page, the API): delta is the row-count difference, as the table above prints it
    const rec = (await db.pool.query(`SELECT result FROM job_runs WHERE kind = 'dq.run' ORDER BY created_at DESC LIMIT 1`)).rows[0].result;
    expect(rec.units).toEqual([expect.objectContaining({ table: 'orders', branch: 'br1', status: 'MISMATCH', delta: -1, differing: 2 })]);

    const fixed = await cli(['--since', '2023-01-01', '--branch', 'br1', '--tables', 'orders', '--repair', '--repair-deletes', '--json']);
    expect(fixed.code).toBe(0);
    expect(JSON.parse(fixed.stdout).results[0]).toMatchObject({ status: 'OK', hashMismatch: 1, hashOnlyInIceberg: 1, repair: { status: 'REPAIRED' } });
    // the recorded run says the differences were repaired (an OK unit with rows differing is no riddle)
    const recFixed = (await db.pool.query(`SELECT result FROM job_runs WHERE kind = 'dq.run' ORDER BY created_at DESC LIMIT 1`)).rows[0].result;
    expect(recFixed.units).toEqual([expect.objectContaining({ table: 'orders', branch: 'br1', status: 'OK', differing: 2, repair: 'REPAIRED' })]);
    await sql(1, `UPDATE oasis.orders SET amount = amount + 1 WHERE order_id = 35`);
    const table = await cli(['--since', '2023-01-01', '--branch', 'br1', '--tables', 'orders', '--repair', '--no-write']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^1 unit\(s\): 1 OK \(1 after repair\), 0 MISMATCH/m);
    const again = await cli(['--since', '2023-01-01', '--no-write']);
    expect(again.code).toBe(0);
    const stored = (await db.pool.query(`SELECT status, count(*)::int AS n FROM etl_meta.etl_dq_results GROUP BY 1 ORDER BY 1`)).rows;
    expect(stored).toEqual([{ status: 'MISMATCH', n: 1 }, { status: 'OK', n: 5 }]);
  });

  it('exits 2 on an unknown branch or table', async () => {
    const r = await cli(['--branch', 'nope', '--no-write']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: --branch: unknown branch nope/);
    const t = await cli(['--tables', 'nope', '--no-write']);
    expect(t.code).toBe(2);
    expect(t.stderr).toMatch(/--tables: unknown table nope/);
  });
});
