import type pg from 'pg';
import { deriveKey, loadKeyMaterial, open, type KeySource } from '../../connections';
import type { Logger } from '../../log';
import { createOracleExecutor } from './dialects/oracle-executor';
import { OracleDialect, type RowidMethod } from './dialects/oracle';
import { createPgExecutor } from './dialects/postgres-executor';
import { PostgresDialect } from './dialects/postgres';
import type { SourceDialect } from './dialects/types';
import { PlanningInputError, parseEngine, type EngineName } from './validate';

/** Where probe/split read from. */
export type SourceConfig =
  | { engine: 'postgres'; url: string }
  | { engine: 'oracle'; user: string; password: string; connectString: string };

type EnvLike = Record<string, string | undefined>;

function port(env: EnvLike, name: string, dflt: number): number {
  const v = env[name];
  if (v === undefined || v === '') return dflt;
  if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > 65535) throw new PlanningInputError(`${name} must be an integer, got '${v}'`, name);
  return Number(v);
}

/**
 * The seed's source variables (SOURCE_DB_TYPE, SOURCE_PG_*, ORACLE_*), with
 * `--source-engine` and `--source-url` winning. Engine default: SOURCE_DB_TYPE,
 * else postgres when a Postgres source is configured, else oracle (the seed's default).
 */
export function sourceFromEnv(env: EnvLike, flags: { engine?: string; sourceUrl?: string } = {}): SourceConfig {
  const pgUrl = flags.sourceUrl ?? env.SLICES_SOURCE_URL;
  const engineRaw = flags.engine ?? env.SOURCE_DB_TYPE ?? (pgUrl || env.SOURCE_PG_HOST ? 'postgres' : 'oracle');
  const engine: EngineName = parseEngine(engineRaw);
  if (engine === 'sqlserver' || engine === 'jdbc') {
    throw new PlanningInputError(`✗ source engine '${engine}' is not supported yet for probe/split (oracle and postgres are)`, 'source-engine');
  }
  if (engine === 'postgres') {
    if (pgUrl) {
      if (!/^postgres(ql)?:\/\//.test(pgUrl)) throw new PlanningInputError(`✗ --source-url must be a postgres:// URL`, 'source-url');
      return { engine, url: pgUrl };
    }
    const host = env.SOURCE_PG_HOST;
    const database = env.SOURCE_PG_DATABASE;
    const user = env.SOURCE_PG_USER;
    if (!host || !database || !user) {
      throw new PlanningInputError('✗ no PostgreSQL source: set SOURCE_PG_HOST, SOURCE_PG_DATABASE and SOURCE_PG_USER (or pass --source-url / --connection)', 'source');
    }
    const u = new URL('postgres://x');
    u.hostname = host;
    u.port = String(port(env, 'SOURCE_PG_PORT', 5432));
    u.pathname = `/${encodeURIComponent(database)}`;
    u.username = encodeURIComponent(user);
    if (env.SOURCE_PG_PASSWORD) u.password = encodeURIComponent(env.SOURCE_PG_PASSWORD);
    u.searchParams.set('sslmode', env.SOURCE_PG_SSLMODE || 'prefer');
    return { engine, url: u.toString() };
  }
  const connectString = env.ORACLE_DSN || (env.ORACLE_HOST && env.ORACLE_SERVICE ? `${env.ORACLE_HOST}:${port(env, 'ORACLE_PORT', 1521)}/${env.ORACLE_SERVICE}` : '');
  if (!connectString || !env.ORACLE_USER) {
    throw new PlanningInputError('✗ no Oracle source: set ORACLE_DSN (or ORACLE_HOST + ORACLE_SERVICE), ORACLE_USER and ORACLE_PASSWORD (or pass --connection / --source-engine postgres)', 'source');
  }
  return { engine, user: env.ORACLE_USER, password: env.ORACLE_PASSWORD ?? '', connectString };
}

/** A connection record (params + decrypted secrets) as a SourceConfig. */
export function sourceFromConnection(c: { name: string; kind: string; params: Record<string, unknown>; secrets: Record<string, string> }): SourceConfig {
  const p = c.params;
  const str = (k: string) => (p[k] === undefined || p[k] === null ? undefined : String(p[k]));
  if (c.kind === 'postgres') {
    const url = c.secrets.url ?? c.secrets.connection_string;
    if (url) return { engine: 'postgres', url };
    const u = new URL('postgres://x');
    u.hostname = str('host') ?? 'localhost';
    u.port = str('port') ?? '5432';
    u.pathname = `/${encodeURIComponent(str('database') ?? str('dbname') ?? 'postgres')}`;
    u.username = encodeURIComponent(str('user') ?? '');
    if (c.secrets.password) u.password = encodeURIComponent(c.secrets.password);
    if (str('sslmode')) u.searchParams.set('sslmode', str('sslmode')!);
    return { engine: 'postgres', url: u.toString() };
  }
  if (c.kind === 'oracle') {
    const service = str('service_name') ?? str('service') ?? str('sid');
    const connectString = str('dsn') ?? c.secrets.connection_string ?? `${str('host')}:${str('port') ?? '1521'}/${service}`;
    return { engine: 'oracle', user: str('user') ?? '', password: c.secrets.password ?? '', connectString };
  }
  throw new PlanningInputError(`✗ connection '${c.name}' is a ${c.kind} connection: probe/split need an oracle or postgres source`, 'connection');
}

/** `--connection NAME`: the row of Tributary's `connections` table, secrets decrypted. */
export async function sourceFromConnectionName(pool: pg.Pool, name: string, keys: KeySource): Promise<SourceConfig> {
  const r = await pool.query('SELECT name, kind, params, secrets_enc FROM connections WHERE name = $1', [name]);
  if (!r.rows[0]) throw new PlanningInputError(`✗ connection '${name}' not found (see tributary connections list)`, 'connection');
  const row = r.rows[0];
  const secrets = row.secrets_enc ? open<Record<string, string>>(deriveKey(loadKeyMaterial(keys)), row.secrets_enc) : {};
  return sourceFromConnection({ name: row.name, kind: row.kind, params: row.params ?? {}, secrets });
}

/** A display form without credentials. */
export function describeSource(c: SourceConfig): string {
  if (c.engine === 'oracle') return `oracle ${c.user}@${c.connectString}`;
  const u = new URL(c.url);
  return `postgres ${decodeURIComponent(u.username)}@${u.hostname}:${u.port || 5432}${u.pathname}`;
}

export interface OpenSourceOptions {
  /** Timeout of catalog/sample/explain statements, ms. (Default: 60000) */
  timeoutMs?: number;
  /** Timeout of split-time boundary statements (Oracle DBMS_PARALLEL_EXECUTE / NTILE), ms. (Default: 600000) */
  splitTimeoutMs?: number;
  rowidMethod?: RowidMethod;
  logger?: Logger;
}

/** Open a dialect (and its logged read-only executor) on a source. Close with `dialect.exec.close()`. */
export async function openSourceDialect(c: SourceConfig, o: OpenSourceOptions = {}): Promise<SourceDialect> {
  if (c.engine === 'postgres') {
    return new PostgresDialect(await createPgExecutor(c.url, { defaultTimeoutMs: o.timeoutMs, logger: o.logger }));
  }
  const exec = await createOracleExecutor(c, { defaultTimeoutMs: o.timeoutMs, logger: o.logger });
  return new OracleDialect(exec, { rowidMethod: o.rowidMethod, splitTimeoutMs: o.splitTimeoutMs ?? 600_000, logger: o.logger });
}
