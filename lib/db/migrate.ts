import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { projectRoot } from '../config/project-root';
import { AppError } from '../errors';

/** Folder of numbered SQL migrations, `NNNN_name/migration.sql`. */
export const MIGRATIONS_DIR = path.join(projectRoot(), 'prisma/migrations');

// One lock id for every Tributary migrator, so concurrent starts serialise.
const MIGRATE_LOCK = 7_401_337_001;

export interface MigrateResult { applied: string[]; alreadyApplied: number }

/** List migration folder names in apply order. */
export async function listMigrations(dir = MIGRATIONS_DIR): Promise<string[]> {
  const entries = await fs.readdir(/*turbopackIgnore: true*/ dir, { withFileTypes: true });
  return entries.filter((e) => e.isDirectory() && /^\d{4}_/.test(e.name)).map((e) => e.name).sort();
}

/**
 * Apply pending migrations, each in its own transaction, under a session
 * advisory lock: two processes starting together apply each file once.
 * Idempotent: a second call applies nothing.
 */
export async function migrate(url: string, opts: { dir?: string; log?: (m: string) => void } = {}): Promise<MigrateResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try { return await migrateWith(client, opts); } finally { await client.end(); }
}

/**
 * migrate() on a session the caller opened and closes: a starter checks the
 * migrations and the application role on the one connection that found the
 * database (each connection costs a server process and a password exchange).
 */
export async function migrateWith(client: pg.ClientBase, opts: { dir?: string; log?: (m: string) => void } = {}): Promise<MigrateResult> {
  const dir = opts.dir ?? MIGRATIONS_DIR;
  // Nothing pending: answer from a read, taking no lock and running no DDL, so a
  // process connected as the application role (which may create nothing) starts too.
  let locked = false;
  try {
    const known = (await client.query(`select to_regclass('_tributary_migrations') is not null as e`)).rows[0].e as boolean;
    if (known) {
      const seen = new Set((await client.query('select name from _tributary_migrations')).rows.map((r) => r.name as string));
      if ((await listMigrations(dir)).every((n) => seen.has(n))) return { applied: [], alreadyApplied: seen.size };
    }
    await client.query('select pg_advisory_lock($1)', [MIGRATE_LOCK]);
    locked = true;
    await client.query(`create table if not exists _tributary_migrations (
      name text primary key, applied_at timestamptz not null default now())`);
    const done = new Set((await client.query('select name from _tributary_migrations')).rows.map((r) => r.name as string));
    const applied: string[] = [];
    for (const name of await listMigrations(dir)) {
      if (done.has(name)) continue;
      const file = path.join(/*turbopackIgnore: true*/ dir, name, 'migration.sql');
      const sql = await fs.readFile(/*turbopackIgnore: true*/ file, 'utf8');
      try {
        await client.query('begin');
        await client.query(sql);
        await client.query('insert into _tributary_migrations(name) values ($1)', [name]);
        await client.query('commit');
      } catch (e) {
        await client.query('rollback');
        // The application role may create nothing: migrations need the tables' owner.
        const hint = (e as { code?: string }).code === '42501' ? ' — migrations run as the owner of the tables (see README, "Database roles")' : '';
        throw new AppError('internal', `db: migration ${name} failed: ${(e as Error).message}${hint}`, { cause: e });
      }
      opts.log?.(`applied migration ${name}`);
      applied.push(name);
    }
    return { applied, alreadyApplied: done.size };
  } finally {
    // Session-scoped lock: if unlocking fails the connection is gone and the lock with it.
    if (locked) await client.query('select pg_advisory_unlock($1)', [MIGRATE_LOCK]).catch(() => {});
  }
}
