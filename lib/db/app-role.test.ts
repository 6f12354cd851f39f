// Issue #20 (6): the embedded database is used through a non-superuser
// application role. A fresh data folder goes through the product's own path
// (connectDatabase: embedded server, migrations and the job queue as the
// owner, then `tributary_app`); connected as that role, the audit log cannot
// be tampered with, nothing can be created or altered, and the engines' normal
// work (users, jobs through the queue and a worker, the Iceberg catalog,
// etl_meta, temp tables) still runs.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as arrow from 'apache-arrow';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEnv } from '../config/env';
import { silentLogger } from '../log';
import { recordAudit, listAuditEvents } from '../audit';
import { createUser } from '../auth';
import { createJobRegistry, enqueueJob, ensureQueue, getJobRun, installQueue, startWorker, systemJobs } from '../jobs';
import { openLake } from '../lake';
import { batchOf, makeWarehouse } from '../lake/test-helpers';
import { recordSuccess } from '../etl/control';
import { ensureAppRoleChecked, appRolePassword } from './app-role';
import { connectDatabase } from './connect';
import { migrate } from './migrate';
import { createPool } from './pool';
import { createPrisma } from './prisma';
import type { EmbeddedHandle } from './embedded-postgres';

let dataDir: string;
let embedded: EmbeddedHandle | null = null;
let url: string;
let ownerUrl: string;
let app: pg.Pool;
const wh = makeWarehouse();

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trb-app-role-'));
  const env = parseEnv({ TRIBUTARY_DATA_DIR: dataDir } as unknown as NodeJS.ProcessEnv);
  const c = await connectDatabase(env, { setup: installQueue });
  ({ url, ownerUrl, embedded } = c);
  app = createPool(url, { max: 4 });
}, 180_000);

afterAll(async () => {
  await app?.end();
  await embedded?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
  wh.remove();
});

const refused = async (sql: string) => {
  const e = await app.query(sql).then(() => null, (err) => err as { code?: string; message: string });
  expect(e, `${sql} should be refused`).not.toBeNull();
  return e!;
};

describe('the application role of the embedded database', () => {
  it('is what the process connects as: a non-superuser with its password in a 0600 file', async () => {
    expect(new URL(url).username).toBe('tributary_app');
    expect(new URL(ownerUrl).username).not.toBe('tributary_app');
    const r = await app.query('select current_user as u, rolsuper, rolcreaterole, rolcreatedb from pg_roles where rolname = current_user');
    expect(r.rows[0]).toEqual({ u: 'tributary_app', rolsuper: false, rolcreaterole: false, rolcreatedb: false });
    expect(fs.statSync(path.join(dataDir, 'pg-app.password')).mode & 0o777).toBe(0o600);
    const owned = await app.query(`select count(*)::int as n from pg_class c join pg_roles o on o.oid = c.relowner where o.rolname = current_user`);
    expect(owned.rows[0].n).toBe(0);
  });

  it('cannot disable the audit trigger, delete, update or truncate audit rows; may insert and read them', async () => {
    await recordAudit(app, { actor: 'test', action: 'probe.write', target: 'x' });
    expect((await listAuditEvents(app, { action: 'probe.write' })).length).toBe(1);
    expect((await refused('ALTER TABLE audit_events DISABLE TRIGGER USER')).code).toBe('42501');
    expect((await refused('DELETE FROM audit_events')).code).toBe('42501');
    expect((await refused(`UPDATE audit_events SET actor = 'someone else'`)).code).toBe('42501');
    expect((await refused('TRUNCATE audit_events')).code).toBe('42501');
    expect((await refused('DROP TRIGGER audit_events_no_update ON audit_events')).code).toBe('42501');
    expect((await refused('ALTER TABLE audit_events OWNER TO tributary_app')).code).toBe('42501');
    expect((await app.query('select count(*)::int as n from audit_events')).rows[0].n).toBeGreaterThan(0);
  });

  it('creates, drops and alters nothing, and cannot raise its own powers', async () => {
    await refused('CREATE TABLE public.evil (x int)');
    await refused('CREATE SCHEMA evil');
    await refused('DROP TABLE users');
    await refused('ALTER TABLE users ADD COLUMN evil int');
    await refused('ALTER ROLE tributary_app SUPERUSER');
    await refused('CREATE ROLE evil LOGIN');
    await refused(`INSERT INTO _tributary_migrations (name) VALUES ('9999_fake')`);
    // Migrations as the application role: nothing pending, so a read and no DDL.
    expect((await migrate(url)).applied).toEqual([]);
  });

  it("still does the application's work: users, the job queue and a worker, the Iceberg catalog, etl_meta, temp tables", async () => {
    const prisma = createPrisma(url, { max: 2 });
    try {
      await createUser(prisma, { name: 'ada', password: 'ada-password-1', role: 'admin' });
      expect(await prisma.user.count()).toBe(1);
      await ensureQueue(app); // installed by the owner already: a no-op the app role may run
      const jobs = createJobRegistry(systemJobs);
      const env = parseEnv({ TRIBUTARY_DATA_DIR: dataDir } as unknown as NodeJS.ProcessEnv);
      const { runId } = await enqueueJob({ pool: app, jobs, env }, { kind: 'system.check', createdBy: 'test' });
      const worker = await startWorker({ jobs, pool: app, env, logger: silentLogger, concurrency: 1, heartbeatMs: 300, staleAfterMs: 60_000 });
      try {
        const until = Date.now() + 60_000;
        let run = await getJobRun(app, runId);
        while (run?.status !== 'succeeded' && run?.status !== 'failed' && Date.now() < until) {
          await new Promise((r) => setTimeout(r, 200));
          run = await getJobRun(app, runId);
        }
        expect(run?.status, run?.error ?? '').toBe('succeeded');
      } finally {
        await worker.stop();
      }
    } finally {
      await prisma.$disconnect();
    }
    const lake = openLake({ pool: app, warehouse: wh.uri });
    const schema = new arrow.Schema([new arrow.Field('BRANCH_ID', new arrow.Utf8(), false), new arrow.Field('id', new arrow.Int64(), false)]);
    const t = await lake.createTable('sales.orders', { schema, partitionBy: ['BRANCH_ID'] });
    await t.append([batchOf(schema, [{ BRANCH_ID: 'b1', id: 1n }, { BRANCH_ID: 'b1', id: 2n }])]);
    expect((await lake.listTables('sales'))).toContain('sales.orders');
    const now = new Date();
    await recordSuccess(app, { namespace: 'sales', table: 'orders', branch: 'b1', runId: 'r1', mode: 'full', watermark: { cdc: '2', date: null }, snapshotId: null, rows: 2, startedAt: now, finishedAt: now });
    expect((await app.query('select last_cdc_value from etl_meta.control_state')).rows[0].last_cdc_value).toBe('2');
    const c = await app.connect();
    try {
      await c.query('create temp table stage (x int)');
      await c.query('insert into stage values (1)');
    } finally { c.release(); }
  });

  it('a second start on the same data folder (a CLI while serve runs) finds the server and the same role', async () => {
    const env = parseEnv({ TRIBUTARY_DATA_DIR: dataDir } as unknown as NodeJS.ProcessEnv);
    const again = await connectDatabase(env, { setup: installQueue });
    expect(again.embedded?.owned).toBe(false);
    expect(again.url).toBe(url);
    expect((await app.query('select count(*)::int as n from audit_events')).rows[0].n).toBeGreaterThan(0);
    expect((await refused('DELETE FROM audit_events')).code).toBe('42501');
  });

  it('a table a later migration creates is usable at once (default privileges)', async () => {
    const owner = new pg.Client({ connectionString: ownerUrl });
    await owner.connect();
    try { await owner.query('create table later_table (id bigserial primary key, v text)'); } finally { await owner.end(); }
    await app.query(`insert into later_table (v) values ('x')`);
    expect((await app.query('select count(*)::int as n from later_table')).rows[0].n).toBe(1);
    await refused('TRUNCATE later_table');
  });

  it('a start that changed nothing does not re-run the grants; a new migration (a created table) does', async () => {
    const env = parseEnv({ TRIBUTARY_DATA_DIR: dataDir } as unknown as NodeJS.ProcessEnv);
    await connectDatabase(env, { setup: installQueue }); // brings the stored fingerprint up to date
    const password = appRolePassword(dataDir);
    expect((await ensureAppRoleChecked(ownerUrl, { password })).granted).toBe(false);
    const owner = new pg.Client({ connectionString: ownerUrl });
    await owner.connect();
    try {
      // A grant taken away by hand is not given back by a start that changed nothing: the grants did not run.
      await owner.query('revoke select on users from tributary_app');
      await connectDatabase(env, { setup: installQueue });
      expect((await refused('select count(*) from users')).code).toBe('42501');
      // What a migration does (creates a table): the next start grants again, which restores the grant too.
      await owner.query('create table later_migration_table (id int)');
      await connectDatabase(env, { setup: installQueue });
      expect((await app.query('select count(*)::int as n from users')).rows[0].n).toBeGreaterThanOrEqual(0);
      expect((await ensureAppRoleChecked(ownerUrl, { password })).granted).toBe(false);
    } finally { await owner.end(); }
  });
});
