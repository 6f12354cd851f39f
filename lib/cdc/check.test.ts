import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEnv, type Env } from '../config/env';
import { createConnection } from '../connections';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { checkCdcRequest } from './check';

// A cdc.stream payload is checked when posted, like etl.run's: the tables file must lie in the data
// folder (a job holds every branch's credentials; a payload must not read files elsewhere) and the
// branch must be a branch connection.
const SECRET = 'cdc-check-secret-0123456789abcdef';
let db: TestDatabase;
let dir: string;
let env: Env;
beforeAll(async () => {
  db = await createTestDatabase();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cdc-check-'));
  fs.writeFileSync(path.join(dir, 'tables.json'), JSON.stringify([{ table: 'public.items', unique_key: 'id' }]));
  env = parseEnv({ TRIBUTARY_DATA_DIR: dir, TRIBUTARY_SECRET: SECRET, TRIBUTARY_TABLES_FILE: path.join(dir, 'tables.json') } as unknown as NodeJS.ProcessEnv);
  await createConnection({ pool: db.pool, keys: { secret: SECRET, dataDir: dir } }, { name: 'b0', kind: 'postgres', isBranch: true, branchKey: 'b0', secrets: { url: 'postgres://u:p@127.0.0.1:1/x' } });
});
afterAll(async () => {
  await db?.drop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('checkCdcRequest', () => {
  it('refuses a tables file outside the data folder and an unknown branch, naming the field; accepts a known branch', async () => {
    await expect(checkCdcRequest({ pool: db.pool, env }, { branch: 'b0', tablesFile: '/etc/passwd' })).rejects.toMatchObject({ code: 'validation', field: 'params.tablesFile' });
    await expect(checkCdcRequest({ pool: db.pool, env }, { branch: 'zz' })).rejects.toMatchObject({ code: 'validation', field: 'params.branch', message: expect.stringMatching(/^params\.branch: unknown branch "zz" \(known: b0\)/) });
    await expect(checkCdcRequest({ pool: db.pool, env }, { branch: 'b0' })).resolves.toBeUndefined();
    await expect(checkCdcRequest({ pool: db.pool, env }, { branch: 'b0', tablesFile: 'tables.json' })).resolves.toBeUndefined();
  });
});
