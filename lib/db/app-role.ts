import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { writeSecretFile } from '../config/secret';
import { AppError } from '../errors';

/** The login role the web process, the workers and the CLI engines use on the embedded database. */
export const APP_ROLE = 'tributary_app';
/** Owns `audit_events`, so the application role cannot alter, disable or empty it. Cannot log in. */
export const AUDIT_ROLE = 'tributary_audit';

// Serialises two starters granting at once (concurrent GRANTs on one object fail with "tuple concurrently updated").
const GRANT_LOCK = 7_401_337_003;

/**
 * The application role's password: `<dataDir>/pg-app.password` (mode 0600),
 * created once with 24 random bytes; every later start reads it.
 */
export function appRolePassword(dataDir: string): string {
  const file = path.join(dataDir, 'pg-app.password');
  try {
    writeSecretFile(file, crypto.randomBytes(24).toString('base64url') + '\n', { exclusive: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e; // another starter made it first: read theirs
  }
  return fs.readFileSync(file, 'utf8').trim();
}

/** The owner's URL with the application role's credentials. */
export function appRoleUrl(ownerUrl: string, password: string, role = APP_ROLE): string {
  const u = new URL(ownerUrl);
  u.username = role;
  u.password = encodeURIComponent(password);
  return u.toString();
}

/**
 * The statements that give `role` what the application needs and nothing
 * more, run by the owner of the tables (the superuser of the embedded
 * database) after migrations and the job queue's own set-up:
 *
 * - a login role that is not a superuser and may create no database, role or
 *   schema object (it owns nothing: every table stays the owner's);
 * - CONNECT and TEMPORARY on the database (the native slice loader stages in
 *   temp tables);
 * - in every schema (public, etl_meta, pgboss, later ones): USAGE, and
 *   SELECT/INSERT/UPDATE/DELETE on tables, USAGE/SELECT/UPDATE on sequences,
 *   EXECUTE on functions — never TRUNCATE, REFERENCES, TRIGGER or CREATE;
 * - default privileges, so tables a later migration creates are usable at once;
 * - `audit_events` owned by AUDIT_ROLE, and the application may only SELECT and
 *   INSERT it: UPDATE, DELETE, TRUNCATE and `ALTER TABLE … DISABLE TRIGGER`
 *   (an owner's right) are all refused;
 * - `_tributary_migrations` read-only (the app checks, the owner migrates).
 *
 * The same text is what README's "Database roles" section asks an operator of
 * an external DATABASE_URL to run (with their own role names).
 */
export function appRoleGrants(role = APP_ROLE, auditRole = AUDIT_ROLE): string {
  const r = pg.escapeIdentifier(role);
  const a = pg.escapeIdentifier(auditRole);
  const auditLit = pg.escapeLiteral(auditRole);
  return `
DO $$
DECLARE s text;
BEGIN
  EXECUTE format('GRANT CONNECT, TEMPORARY ON DATABASE %I TO ${r}', current_database());
  FOR s IN SELECT nspname FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_%' AND nspname <> 'information_schema' LOOP
    EXECUTE format('GRANT USAGE ON SCHEMA %I TO ${r}', s);
    EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA %I TO ${r}', s);
    EXECUTE format('GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA %I TO ${r}', s);
    EXECUTE format('GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA %I TO ${r}', s);
  END LOOP;
  IF to_regclass('public.audit_events') IS NOT NULL THEN
    -- Only when needed: ALTER TABLE takes an exclusive lock, and this runs at every start.
    IF (SELECT r.rolname FROM pg_class c JOIN pg_roles r ON r.oid = c.relowner WHERE c.oid = 'public.audit_events'::regclass) <> ${auditLit} THEN
      ALTER TABLE public.audit_events OWNER TO ${a};
    END IF;
    REVOKE ALL ON public.audit_events FROM ${r};
    GRANT SELECT, INSERT ON public.audit_events TO ${r};
  END IF;
  IF to_regclass('public._tributary_migrations') IS NOT NULL THEN
    REVOKE INSERT, UPDATE, DELETE ON public._tributary_migrations FROM ${r};
  END IF;
END $$;
ALTER DEFAULT PRIVILEGES GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO ${r};
ALTER DEFAULT PRIVILEGES GRANT USAGE, SELECT, UPDATE ON SEQUENCES TO ${r};
ALTER DEFAULT PRIVILEGES GRANT EXECUTE ON FUNCTIONS TO ${r};
`;
}

/**
 * Create (or bring up to date) the application role on the database of
 * `ownerUrl`, as its owner, and return the URL the application connects
 * with. Idempotent; run at every start after migrations, so objects a new
 * migration or a pg-boss upgrade created are granted too.
 */
export async function ensureAppRole(ownerUrl: string, opts: { password: string; role?: string; auditRole?: string }): Promise<string> {
  const role = opts.role ?? APP_ROLE;
  const auditRole = opts.auditRole ?? AUDIT_ROLE;
  const c = new pg.Client({ connectionString: ownerUrl });
  await c.connect();
  try {
    await c.query('begin');
    await c.query('select pg_advisory_xact_lock($1)', [GRANT_LOCK]);
    const exists = async (name: string) => (await c.query('select 1 from pg_roles where rolname = $1', [name])).rowCount! > 0;
    const options = 'LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS NOINHERIT';
    const pw = c.escapeLiteral(opts.password);
    // CREATE ROLE is cluster-wide: another database's starter may race us to it.
    if (!(await exists(role))) await c.query(`CREATE ROLE ${c.escapeIdentifier(role)} ${options} PASSWORD ${pw}`);
    else await c.query(`ALTER ROLE ${c.escapeIdentifier(role)} ${options} PASSWORD ${pw}`);
    if (!(await exists(auditRole))) await c.query(`CREATE ROLE ${c.escapeIdentifier(auditRole)} NOLOGIN`);
    await c.query(appRoleGrants(role, auditRole));
    await c.query('commit');
  } catch (e) {
    await c.query('rollback').catch(() => {}); // the original error is what matters
    throw new AppError('internal', `db: setting up the application role ${role} failed: ${(e as Error).message}`, { cause: e });
  } finally {
    await c.end();
  }
  return appRoleUrl(ownerUrl, opts.password, role);
}
