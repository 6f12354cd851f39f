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
 *
 * Created whole: written to a private temporary file, then linked into place
 * (which fails when the file exists). A file created with O_EXCL and written
 * after would be seen empty by a starter racing it (the CLI and the keeper it
 * spawned both get here on a fresh folder), and an empty password clears the
 * role's password: that starter's grants then lock every other process out.
 */
export function appRolePassword(dataDir: string): string {
  const file = path.join(dataDir, 'pg-app.password');
  if (!fs.existsSync(file)) {
    const tmp = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`;
    writeSecretFile(tmp, crypto.randomBytes(24).toString('base64url') + '\n', { exclusive: true });
    try {
      fs.linkSync(tmp, file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e; // another starter made it first: read theirs
    } finally {
      fs.rmSync(tmp, { force: true });
    }
  }
  const password = fs.readFileSync(file, 'utf8').trim();
  if (!password) throw new AppError('validation', `db: ${file} is empty; delete it (the next start makes a new one)`);
  return password;
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

// What the grants depend on, read in one statement: the schemas, how many relations and functions
// they hold and the newest one (a migration or the job queue's set-up creating or dropping anything
// changes these), and which of the two roles exist. With the grants' text and the password, this is
// the fingerprint stored on the database once the grants ran.
const GRANT_STATE = `
select concat_ws('|',
  (select string_agg(nspname, ',' order by nspname) from pg_namespace where nspname not like 'pg\\_%' and nspname <> 'information_schema'),
  (select count(*) || ':' || coalesce(max(c.oid::bigint), 0) from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname not like 'pg\\_%' and n.nspname <> 'information_schema'),
  (select count(*) || ':' || coalesce(max(p.oid::bigint), 0) from pg_proc p join pg_namespace n on n.oid = p.pronamespace
     where n.nspname not like 'pg\\_%' and n.nspname <> 'information_schema'),
  (select string_agg(rolname, ',' order by rolname) from pg_roles where rolname in ($1, $2))) as state,
  shobj_description(d.oid, 'pg_database') as stored, d.datname
from pg_database d where d.datname = current_database()`;
const MARK = 'tributary-app-role:';

async function grantFingerprint(c: pg.ClientBase, role: string, auditRole: string, password: string): Promise<{ fingerprint: string; stored: string | null; database: string }> {
  const r = (await c.query(GRANT_STATE, [role, auditRole])).rows[0] as { state: string; stored: string | null; datname: string };
  const fingerprint = MARK + crypto.createHash('sha256')
    .update(appRoleGrants(role, auditRole)).update('\0').update(password).update('\0').update(r.state).digest('hex');
  return { fingerprint, stored: r.stored, database: r.datname };
}

/**
 * Create (or bring up to date) the application role on the database of
 * `ownerUrl`, as its owner, and return the URL the application connects
 * with. Idempotent; runs at every start after migrations, so objects a new
 * migration or a pg-boss upgrade created are granted too — but the grants (a
 * write transaction over every table) run only when the fingerprint of what
 * they depend on differs from the one stored on the database (its comment) by
 * the last run: a start that changed nothing costs one read.
 * @param opts.client the owner's session to use (Default: one opened and closed here)
 * @returns the URL, and whether the grants ran
 */
export async function ensureAppRole(ownerUrl: string, opts: { password: string; role?: string; auditRole?: string; client?: pg.ClientBase }): Promise<string> {
  return (await ensureAppRoleChecked(ownerUrl, opts)).url;
}

/** ensureAppRole(), also saying whether the grants ran (tests: a start that changed nothing grants nothing). */
export async function ensureAppRoleChecked(ownerUrl: string, opts: { password: string; role?: string; auditRole?: string; client?: pg.ClientBase }): Promise<{ url: string; granted: boolean }> {
  const role = opts.role ?? APP_ROLE;
  const auditRole = opts.auditRole ?? AUDIT_ROLE;
  const url = appRoleUrl(ownerUrl, opts.password, role);
  const own = opts.client ? null : new pg.Client({ connectionString: ownerUrl });
  const c = opts.client ?? own!;
  if (own) await own.connect();
  try {
    const before = await grantFingerprint(c, role, auditRole, opts.password);
    if (before.stored === before.fingerprint) return { url, granted: false };
    await grantAppRole(c, role, auditRole, opts.password);
    return { url, granted: true };
  } finally {
    await own?.end();
  }
}

async function grantAppRole(c: pg.ClientBase, role: string, auditRole: string, password: string): Promise<void> {
  try {
    await c.query('begin');
    await c.query('select pg_advisory_xact_lock($1)', [GRANT_LOCK]);
    const exists = async (name: string) => (await c.query('select 1 from pg_roles where rolname = $1', [name])).rowCount! > 0;
    const options = 'LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS NOINHERIT';
    const pw = c.escapeLiteral(password);
    // CREATE ROLE is cluster-wide: another database's starter may race us to it.
    if (!(await exists(role))) await c.query(`CREATE ROLE ${c.escapeIdentifier(role)} ${options} PASSWORD ${pw}`);
    else await c.query(`ALTER ROLE ${c.escapeIdentifier(role)} ${options} PASSWORD ${pw}`);
    if (!(await exists(auditRole))) await c.query(`CREATE ROLE ${c.escapeIdentifier(auditRole)} NOLOGIN`);
    await c.query(appRoleGrants(role, auditRole));
    // Stored with the state as it is after the grants (the roles may have just been created).
    const after = await grantFingerprint(c, role, auditRole, password);
    await c.query(`COMMENT ON DATABASE ${c.escapeIdentifier(after.database)} IS ${c.escapeLiteral(after.fingerprint)}`);
    await c.query('commit');
  } catch (e) {
    await c.query('rollback').catch(() => {}); // the original error is what matters
    throw new AppError('internal', `db: setting up the application role ${role} failed: ${(e as Error).message}`, { cause: e });
  }
}
