import type pg from 'pg';
import { resolveSourceByName, sourceDescriptorOf, sourceFromEnv as sourceDescriptorFromEnv, type KeySource } from '../../connections';
import { oracleConnectString, postgresUrl, openSourceDialect as openDialect, describeSource as describe, type OpenDialectOptions, type SourceDescriptor, type SourceDialect } from '../../sources';
import { PlanningInputError, parseEngine, planningError, type FieldStyle } from './validate';

/** Where probe/split read from: a source descriptor resolved by lib/connections. */
export type SourceConfig = SourceDescriptor;

type EnvLike = Record<string, string | undefined>;

/**
 * The seed's source variables (SOURCE_DB_TYPE, SOURCE_PG_*, ORACLE_*), with
 * `--source-engine` and `--source-url` winning (resolved by lib/connections).
 * Engines the seed names but probe/split do not read yet fail here, clearly.
 */
export function sourceFromEnv(env: EnvLike, flags: { engine?: string; sourceUrl?: string } = {}): SourceConfig {
  const pgUrl = flags.sourceUrl ?? env.SLICES_SOURCE_URL;
  const engine = parseEngine(flags.engine ?? env.SOURCE_DB_TYPE ?? (pgUrl || env.SOURCE_PG_HOST ? 'postgres' : 'oracle'));
  if (engine === 'sqlserver' || engine === 'jdbc') {
    throw new PlanningInputError(`✗ source engine '${engine}' is not supported yet for probe/split (oracle and postgres are)`, 'source-engine');
  }
  return sourceDescriptorFromEnv(env, { engine, sourceUrl: flags.sourceUrl });
}

/** `--connection NAME`: the row of Tributary's `connections` table, resolved (secrets decrypted) by lib/connections. */
export async function sourceFromConnectionName(pool: pg.Pool, name: string, keys: KeySource): Promise<SourceConfig> {
  const d = await resolveSourceByName({ pool, keys }, name);
  if (!d) throw new PlanningInputError(`✗ connection '${name}' not found (see tributary connections list)`, 'connection');
  return d;
}

/** A connection record (params + decrypted secrets) as a source; only oracle and postgres connections are sources. */
export function sourceFromConnection(c: { name: string; kind: string; params: Record<string, unknown>; secrets: Record<string, string> }, style: FieldStyle = 'flag', field = 'connection'): SourceConfig {
  if (c.kind !== 'oracle' && c.kind !== 'postgres') {
    throw planningError(style, `connection '${c.name}' is a ${c.kind} connection: probe/split need an oracle or postgres source`, field);
  }
  return sourceDescriptorOf(c);
}

/** The orchestrator's view of a source: a Postgres URL, or Oracle's connect string and credentials. */
export function runSourceOf(d: SourceConfig): { engine: 'postgres'; url: string } | { engine: 'oracle'; connectString: string; user: string; password: string } {
  return d.kind === 'postgres' ? { engine: 'postgres', url: postgresUrl(d) } : { engine: 'oracle', connectString: oracleConnectString(d), user: d.user, password: d.password };
}

/** A display form without credentials. */
export function describeSource(c: SourceConfig): string {
  return describe(c);
}

export type OpenSourceOptions = OpenDialectOptions;

/** Open a dialect (and its logged read-only executor) on a source. Close with `dialect.exec.close()`. */
export function openSourceDialect(c: SourceConfig, o: OpenSourceOptions = {}): Promise<SourceDialect> {
  return openDialect(c, o);
}
