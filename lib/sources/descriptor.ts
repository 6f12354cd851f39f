import type { PgConnectConfig, SslMode } from '../db/pg-connect';
import { oracleConnectString } from './oracle-config';

/**
 * A source as `lib/connections` resolves it — from a stored connection, a
 * branch, or the environment — with its secrets already decrypted. Plain
 * data: every engine opens it through `openSource` / `openSourceExecutor`.
 */
export type SourceDescriptor = PostgresDescriptor | OracleDescriptor;

export interface PostgresDescriptor {
  kind: 'postgres';
  /** Branch key or connection name: labels pools, logs and errors. */
  name: string;
  /** A libpq-style URL (its sslmode & co. honoured); wins over the discrete settings. */
  connectionString?: string;
  host?: string;
  /** (Default: 5432) */
  port?: number;
  database?: string;
  user?: string;
  password?: string;
  /** libpq's sslmode. (Default: prefer) */
  sslmode?: SslMode | string;
  sslrootcert?: string;
  sslcert?: string;
  sslkey?: string;
  /** Connections a pooled reader may hold (the connection's pool_size). */
  poolSize?: number;
  /** Rows per fetch (the connection's fetch_batch_size). */
  fetchBatchSize?: number;
}

export interface OracleDescriptor {
  kind: 'oracle';
  name: string;
  user: string;
  password: string;
  /** A full connect string or TNS alias; wins over host/port/service/sid. */
  dsn?: string;
  host?: string;
  /** (Default: 1521) */
  port?: number;
  serviceName?: string;
  sid?: string;
  /** The connection's own Instant Client dir (the ORACLE_CLIENT_LIB_DIR setting wins). */
  clientLibDir?: string;
  /** The connection asks for a driver mode. (Default: auto) */
  driverMode?: 'auto' | 'thick' | 'thin';
  poolSize?: number;
  fetchBatchSize?: number;
}

/** node-pg settings (TLS per sslmode) of a Postgres descriptor. */
export function pgConfigOf(d: PostgresDescriptor): PgConnectConfig {
  return {
    connectionString: d.connectionString, host: d.host, port: d.port, database: d.database, user: d.user, password: d.password,
    sslmode: d.sslmode, sslrootcert: d.sslrootcert, sslcert: d.sslcert, sslkey: d.sslkey,
  };
}

/** A libpq URL for a Postgres descriptor (its connectionString, else built from the discrete settings, TLS settings kept). */
export function postgresUrl(d: PostgresDescriptor): string {
  if (d.connectionString) return d.connectionString;
  const u = new URL('postgres://x');
  u.hostname = d.host ?? 'localhost';
  u.port = String(d.port ?? 5432);
  u.pathname = `/${encodeURIComponent(d.database ?? 'postgres')}`;
  if (d.user) u.username = encodeURIComponent(d.user);
  if (d.password) u.password = encodeURIComponent(d.password);
  for (const k of ['sslmode', 'sslrootcert', 'sslcert', 'sslkey'] as const) if (d[k]) u.searchParams.set(k, String(d[k]));
  return u.toString();
}

/** A display form without credentials: `postgres reader@host:5432/db`, `oracle etl@host:1521/SVC`. */
export function describeSource(d: SourceDescriptor): string {
  if (d.kind === 'oracle') {
    let cs: string;
    try { cs = oracleConnectString(d); } catch { cs = '?'; }
    return `oracle ${d.user}@${cs}`;
  }
  if (d.connectionString) {
    const u = new URL(d.connectionString);
    return `postgres ${decodeURIComponent(u.username)}@${u.hostname}:${u.port || 5432}${u.pathname}`;
  }
  return `postgres ${d.user ?? ''}@${d.host ?? 'localhost'}:${d.port ?? 5432}/${d.database ?? ''}`;
}

/** `host:port/db` (Postgres) or the connect string (Oracle), no credentials: stored with watermarks. */
export function sourceDsn(d: SourceDescriptor): string {
  return describeSource(d).replace(/^\w+ [^@]*@/, '');
}
