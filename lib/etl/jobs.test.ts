// etl.run and dq.run payloads are checked completely when posted: against the
// schema's bounds, the data folder, tables.json and the branch connections.
// A refused payload leaves no job run behind.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEnv } from '../config/env';
import { createJobRegistry, enqueueJob } from '../jobs';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { dqJobs } from '../dq/jobs';
import { etlJobs } from './jobs';

let db: TestDatabase;
const base = fs.mkdtempSync(path.join(os.tmpdir(), 'etl-jobs-'));
const dataDir = path.join(base, 'data');
const jobs = createJobRegistry([...etlJobs, ...dqJobs]);
const TABLES = [{ table: 'SHOP.CUSTOMERS', unique_key: 'ID' }, { table: 'SHOP.ORDERS', unique_key: 'ID', cdc_column: 'UPDATED_AT', where_date_column: 'ORDER_DATE' }];

beforeAll(async () => {
  db = await createTestDatabase();
  fs.mkdirSync(path.join(dataDir, 'conf'), { recursive: true });
  fs.writeFileSync(path.join(dataDir, 'conf', 'tables.json'), JSON.stringify(TABLES));
  fs.writeFileSync(path.join(base, 'secret.key'), 'not-json-but-a-secret-value');
  fs.writeFileSync(path.join(dataDir, 'secret.key'), 'another-secret-value');
  fs.writeFileSync(path.join(dataDir, 'notes.txt'), 'not json, holding another-secret-value');
  await db.pool.query(`insert into connections (id, name, kind, is_branch, branch_key, params) values (gen_random_uuid(), 'north', 'postgres', true, 'north', '{}')`);
});
afterAll(async () => { await db?.drop(); fs.rmSync(base, { recursive: true, force: true }); });

const env = () => parseEnv({ TRIBUTARY_DATA_DIR: dataDir, TRIBUTARY_TABLES_FILE: path.join(dataDir, 'conf', 'tables.json'), TRIBUTARY_SECRET: 'x'.repeat(32) } as unknown as NodeJS.ProcessEnv);
const post = (kind: string, params: unknown) => enqueueJob({ pool: db.pool, jobs, env: env() }, { kind, params });
const runs = async () => (await db.pool.query('select count(*)::int n from job_runs')).rows[0].n as number;

describe('etl.run / dq.run payload checks', () => {
  it.each([
    ['etl.run', { mode: 'INITIAL', tables: ['customers', 'NOPE'] }, 'params.tables[1]', /unknown table "NOPE"/],
    ['etl.run', { mode: 'INITIAL', branch: ['north', 'south'] }, 'params.branch[1]', /unknown branch "south"/],
    ['etl.run', { mode: 'INITIAL', poolSize: 1e9 }, 'params.poolSize', /≤ 64/],
    ['etl.run', { mode: 'INITIAL', maxTableWorkers: 0 }, 'params.maxTableWorkers', /≥ 1/],
    ['etl.run', { mode: 'SOMETIMES' }, 'params.mode', /INITIAL or INCREMENTAL/],
    // a value of the wrong JSON type says what was expected and what came (not "required", not "Invalid input")
    ['etl.run', { mode: 7 }, 'params.mode', /^params\.mode: expected INITIAL or INCREMENTAL, got 7$/],
    ['etl.run', {}, 'params.mode', /^params\.mode: required \(INITIAL or INCREMENTAL\)$/],
    ['etl.run', { mode: 'INITIAL', branch: 5 }, 'params.branch', /^params\.branch: expected a name, names separated by commas, or a list of names, got 5$/],
    ['etl.run', { mode: 'INITIAL', maxTableWorkers: true }, 'params.maxTableWorkers', /^params\.maxTableWorkers: expected an integer ≥ 1 and ≤ 64, got true$/],
    ['etl.run', { mode: 'INITIAL', compression: 5 }, 'params.compression', /^params\.compression: expected snappy, zstd, lz4 or uncompressed, got 5$/],
    ['etl.run', { mode: 'INITIAL', branch: [1, ...Array(40).fill('x')] }, 'params.branch', /^params\.branch: expected a name, names separated by commas, or a list of names, got \[1,"x","x",.{49}…$/],
    ['etl.run', { mode: 'INITIAL', oracleClientLibDir: '/tmp/evil' }, 'params.oracleClientLibDir', /unknown field/],
    ['etl.run', { mode: 'INITIAL', tablesFile: '../secret.key' }, 'params.tablesFile', /under the data folder/],
    ['etl.run', { mode: 'INITIAL', tablesFile: path.join(base, 'secret.key') }, 'params.tablesFile', /under the data folder/],
    ['etl.run', { mode: 'INITIAL', tablesFile: 'secret.key' }, 'params.tablesFile', /not its secret key/],
    ['etl.run', { mode: 'INITIAL', tablesJson: { tables: 'x' } }, 'params.tablesJson', /expected a JSON array/],
    ['dq.run', { tables: ['nope'] }, 'params.tables[0]', /unknown table/],
    ['dq.run', { csv: '/tmp/x/../y' }, 'params.csv', /under the data folder/],
    ['dq.run', { selfTest: true, csv: '../../elsewhere' }, 'params.csv', /under the data folder/],
    ['dq.run', { since: '2026-02-30' }, 'params.since', /not a calendar date/],
  ])('%s %j → 400 naming %s, nothing saved', async (kind, params, field, msg) => {
    const e = await post(kind, params).catch((x) => x);
    expect(e).toMatchObject({ code: 'validation', status: 400, field });
    expect(e.message).toMatch(msg);
    expect(await runs()).toBe(0);
  });

  it('never quotes a file it could not parse', async () => {
    const e = await post('etl.run', { mode: 'INITIAL', tablesFile: 'notes.txt' }).catch((x) => x);
    expect(e).toMatchObject({ code: 'validation', field: 'params.tablesFile' });
    expect(e.message).toMatch(/not valid JSON/);
    expect(e.message).not.toMatch(/another-secret|secret-value/);
  });

  it('accepts what exists, inline tables and files inside the data folder', async () => {
    await expect(post('etl.run', { mode: 'INCREMENTAL', tables: 'orders', branch: 'north' })).resolves.toMatchObject({ runId: expect.any(String) });
    await expect(post('etl.run', { mode: 'INITIAL', tablesFile: 'conf/tables.json', tables: ['SHOP.CUSTOMERS'] })).resolves.toBeTruthy();
    await expect(post('etl.run', { mode: 'INITIAL', tablesJson: TABLES, tables: ['customers'] })).resolves.toBeTruthy();
    await expect(post('dq.run', { csv: 'reports/dq', branch: ['north'] })).resolves.toBeTruthy();
    expect(await runs()).toBe(4);
    const stored = (await db.pool.query(`select params from job_runs where kind = 'etl.run' order by created_at limit 1`)).rows[0].params;
    // stored as written: the worker parses it again with the same schema
    expect(stored).toEqual({ mode: 'INCREMENTAL', tables: 'orders', branch: 'north' });
  });
});
