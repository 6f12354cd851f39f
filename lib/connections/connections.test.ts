import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { connectionsFromToml } from './import-toml';
import { deriveKey, loadKeyMaterial, open, seal } from './secret-box';
import { createConnection, getBranches, getConnection, listConnections } from './store';

let db: TestDatabase;
let dataDir: string;
beforeAll(async () => { db = await createTestDatabase(); dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'conn-')); });
afterAll(async () => { await db.drop(); fs.rmSync(dataDir, { recursive: true, force: true }); });

describe('secret box', () => {
  it('creates secret.key once with mode 0600 and round-trips AES-GCM', () => {
    const m1 = loadKeyMaterial({ dataDir });
    const m2 = loadKeyMaterial({ dataDir });
    expect(m1).toBe(m2);
    expect(fs.statSync(path.join(dataDir, 'secret.key')).mode & 0o777).toBe(0o600);
    const k = deriveKey(m1);
    const sealed = seal(k, { password: 'p@ss' });
    expect(sealed).not.toContain('p@ss');
    expect(open(k, sealed)).toEqual({ password: 'p@ss' });
    expect(() => open(deriveKey('other'), sealed)).toThrow(/cannot decrypt/);
    expect(loadKeyMaterial({ dataDir, secret: 'from-env-0123456789' })).toBe('from-env-0123456789');
  });
});

describe('TOML import', () => {
  const toml = `
[oracle_branches.alrabwah]
user = "etl"
password = "\${ORA_PW}"
host = "10.0.0.5"
port = 1521
service_name = "OASIS"
fetch_batch_size = 20000

[postgres_branches.khamis]
host = "pg.local"
database = "oasis"
username = "reader"
password = "\${PG_PW}"
`;
  it('maps sections to branch connections with ${ENV} interpolation and sealed secrets', () => {
    const c = connectionsFromToml(toml, { ORA_PW: 'o', PG_PW: 'p' });
    expect(c).toEqual([
      { name: 'alrabwah', kind: 'oracle', isBranch: true, branchKey: 'alrabwah', params: { user: 'etl', host: '10.0.0.5', port: 1521, service_name: 'OASIS', fetch_batch_size: 20000 }, secrets: { password: 'o' } },
      { name: 'khamis', kind: 'postgres', isBranch: true, branchKey: 'khamis', params: { host: 'pg.local', database: 'oasis', user: 'reader' }, secrets: { password: 'p' } },
    ]);
    expect(() => connectionsFromToml(toml, { ORA_PW: 'o' })).toThrow(/PG_PW is not set/);
    expect(() => connectionsFromToml('[mysql_branches.x]\nhost="h"', {})).toThrow(/unknown section \[mysql_branches\]/);
    expect(() => connectionsFromToml('[oracle_branches.x]\nuser="u"', {})).toThrow(/needs dsn, or host/);
    // issue 25: a PostgreSQL branch streams from its write-ahead log with cdc = "log"
    expect(connectionsFromToml('[postgres_branches.x]\nhost="h"\ncdc="log"', {})[0].params).toEqual({ host: 'h', cdc: 'log' });
    expect(() => connectionsFromToml('[postgres_branches.x]\nhost="h"\ncdc="wal"', {})).toThrow(/\[postgres_branches.x\]: cdc must be "watermark" or "log"/);
    expect(() => connectionsFromToml('[oracle_branches.x]\ndsn="d"\ncdc="log"', {})).toThrow(/no "log" mode/);
  });
  it('stores, lists without secrets, and hands branches to the engine decrypted', async () => {
    const ctx = { pool: db.pool, keys: { dataDir } };
    for (const c of connectionsFromToml(toml, { ORA_PW: 'o', PG_PW: 'p' })) await createConnection(ctx, c, { upsert: true });
    await createConnection(ctx, { name: 'khamis', kind: 'postgres', isBranch: true, branchKey: 'khamis', params: { host: 'pg2' }, secrets: { password: 'p2' } }, { upsert: true });
    await expect(createConnection(ctx, { name: 'dup', kind: 'postgres', isBranch: true, branchKey: 'khamis', params: { host: 'x' } })).rejects.toThrow(/branch key already exists/);
    await expect(createConnection(ctx, { name: 'bad', kind: 'oracle', isBranch: true })).rejects.toThrow(/branchKey/);
    const list = await listConnections(ctx);
    expect(list.map((c) => [c.name, c.secretKeys])).toEqual([['alrabwah', ['password']], ['khamis', ['password']]]);
    expect(JSON.stringify(list)).not.toMatch(/"p2"|"o"/);
    expect((await getConnection(ctx, 'khamis'))!.params).toEqual({ host: 'pg2' });
    const raw = await db.pool.query(`SELECT secrets_enc FROM connections WHERE name = 'khamis'`);
    expect(raw.rows[0].secrets_enc).toMatch(/^v1:/);
    const br = await getBranches(ctx);
    expect(br.map((b) => [b.key, b.kind, b.secrets.password])).toEqual([['alrabwah', 'oracle', 'o'], ['khamis', 'postgres', 'p2']]);
  });
});
