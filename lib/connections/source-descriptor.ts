import { AppError } from '../errors';
import type { SourceDescriptor } from '../sources';
import { getConnectionSecrets, type ConnectionsContext } from './store';

/**
 * The one place a connection becomes a source: a stored connection (params +
 * decrypted secrets), a branch, or the seed's environment variables resolve
 * into a plain `SourceDescriptor` that every engine opens with lib/sources'
 * `openSource…` functions. Secrets reach the engines only through here.
 */

const str = (v: unknown) => (v === undefined || v === null || v === '' ? undefined : String(v));
const num = (v: unknown) => (v === undefined || v === null || v === '' ? undefined : Number(v));

/** A connection record as a source descriptor; `name` labels it (the branch key for branches). */
export function sourceDescriptorOf(c: { name: string; kind: string; params: Record<string, unknown>; secrets: Record<string, string> }): SourceDescriptor {
  const p = c.params ?? {};
  const s = c.secrets ?? {};
  const common = { name: c.name, poolSize: num(p.pool_size), fetchBatchSize: num(p.fetch_batch_size) };
  if (c.kind === 'postgres') {
    return {
      kind: 'postgres', ...common,
      connectionString: s.url ?? s.connection_string,
      host: str(p.host), port: num(p.port), database: str(p.database ?? p.dbname), user: str(p.user ?? p.username), password: s.password,
      sslmode: str(p.sslmode), sslrootcert: str(p.sslrootcert), sslcert: str(p.sslcert), sslkey: str(p.sslkey),
    };
  }
  if (c.kind === 'oracle') {
    const mode = str(p.driver_mode ?? p.oracle_driver_mode);
    return {
      kind: 'oracle', ...common,
      user: str(p.user ?? p.username) ?? '', password: s.password ?? '',
      dsn: str(p.dsn) ?? s.connection_string, host: str(p.host), port: num(p.port),
      serviceName: str(p.service_name ?? p.serviceName ?? p.service), sid: str(p.sid),
      clientLibDir: str(p.oracle_client_lib_dir),
      driverMode: mode === 'thick' || mode === 'thin' || mode === 'auto' ? mode : p.thick === true ? 'thick' : undefined,
    };
  }
  throw new AppError('validation', `✗ connection '${c.name}' is a ${c.kind} connection: a source must be an oracle or postgres connection`, { field: 'connection' });
}

/** Branch records (lib/connections' getBranches) as descriptors named by branch key. */
export function branchDescriptorOf(b: { key: string; kind: string; params: Record<string, unknown>; secrets: Record<string, string> }): SourceDescriptor {
  return sourceDescriptorOf({ ...b, name: b.key });
}

/** `--connection NAME`: the stored connection as a descriptor, secrets decrypted; null when there is none by that name. */
export async function resolveSourceByName(ctx: ConnectionsContext, name: string): Promise<SourceDescriptor | null> {
  const c = await getConnectionSecrets(ctx, name);
  return c ? sourceDescriptorOf(c) : null;
}

type EnvLike = Record<string, string | undefined>;

function port(env: EnvLike, name: string, dflt: number): number {
  const v = env[name];
  if (v === undefined || v === '') return dflt;
  if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > 65535) throw new AppError('usage', `${name} must be an integer, got '${v}'`, { field: name });
  return Number(v);
}

/**
 * The seed's source variables (SOURCE_DB_TYPE, SLICES_SOURCE_URL, SOURCE_PG_*,
 * ORACLE_*), with `--source-engine` and `--source-url` winning. Engine default:
 * SOURCE_DB_TYPE, else postgres when a Postgres source is configured, else
 * oracle (the seed's default). SOURCE_PG_SSLMODE is libpq's sslmode (Default: prefer).
 */
export function sourceFromEnv(env: EnvLike, flags: { engine?: string; sourceUrl?: string } = {}): SourceDescriptor {
  const pgUrl = flags.sourceUrl ?? env.SLICES_SOURCE_URL;
  const engine = (flags.engine ?? env.SOURCE_DB_TYPE ?? (pgUrl || env.SOURCE_PG_HOST ? 'postgres' : 'oracle')).trim().toLowerCase();
  if (engine === 'postgres') {
    if (pgUrl) {
      if (!/^postgres(ql)?:\/\//.test(pgUrl)) throw new AppError('usage', '✗ --source-url must be a postgres:// URL', { field: 'source-url' });
      return { kind: 'postgres', name: 'source', connectionString: pgUrl };
    }
    const host = env.SOURCE_PG_HOST;
    const database = env.SOURCE_PG_DATABASE;
    const user = env.SOURCE_PG_USER;
    if (!host || !database || !user) {
      throw new AppError('usage', '✗ no PostgreSQL source: set SOURCE_PG_HOST, SOURCE_PG_DATABASE and SOURCE_PG_USER (or pass --source-url / --connection)', { field: 'source' });
    }
    return {
      kind: 'postgres', name: 'source', host, port: port(env, 'SOURCE_PG_PORT', 5432), database, user,
      password: env.SOURCE_PG_PASSWORD || undefined, sslmode: env.SOURCE_PG_SSLMODE || undefined, sslrootcert: env.SOURCE_PG_SSLROOTCERT || undefined,
    };
  }
  if (engine !== 'oracle') throw new AppError('usage', `✗ source engine '${engine}' is not supported (oracle and postgres are)`, { field: 'source-engine' });
  const dsn = env.ORACLE_DSN || undefined;
  if ((!dsn && !(env.ORACLE_HOST && env.ORACLE_SERVICE)) || !env.ORACLE_USER) {
    throw new AppError('usage', '✗ no Oracle source: set ORACLE_DSN (or ORACLE_HOST + ORACLE_SERVICE), ORACLE_USER and ORACLE_PASSWORD (or pass --connection / --source-engine postgres)', { field: 'source' });
  }
  return {
    kind: 'oracle', name: 'source', user: env.ORACLE_USER, password: env.ORACLE_PASSWORD ?? '',
    dsn, host: env.ORACLE_HOST, port: port(env, 'ORACLE_PORT', 1521), serviceName: env.ORACLE_SERVICE,
  };
}
