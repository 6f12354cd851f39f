import type { Logger } from '../log';
import { pgConfigOf, sourceDsn, type OracleDescriptor, type PostgresDescriptor, type SourceDescriptor } from './descriptor';
import type { SourceDialect } from './dialect';
import { oracleConnectString, pickOracleClientLibDir } from './oracle-config';
import { OracleDialect, type RowidMethod } from './oracle-dialect';
import { loadOracle } from './oracle-driver';
import { createOracleExecutor } from './oracle-executor';
import { createOracleSource, type OracleBranchOptions } from './oracle-source';
import { createPgPool } from '../db/pg-connect';
import { PostgresDialect } from './postgres-dialect';
import { createPgExecutor } from './postgres-executor';
import { createPostgresSource, type PostgresBranchOptions } from './postgres-source';
import type { SourceExecutor } from './source-executor';
import type { BranchSource } from './types';

/** How an engine opens a source; settings come from its caller, never from the environment. */
export interface OpenSourceOptions {
  /**
   * The ORACLE_CLIENT_LIB_DIR setting, or candidates in order (setting, then a
   * flag): the first that exists wins, then the connection's own dir; none →
   * the system library path. (Default: none)
   */
  oracleClientLibDir?: string | (string | undefined)[];
  /** Overrides the descriptor's pool size. (Default: the descriptor's, else 4) */
  poolSize?: number;
  /** Seconds to wait for a Postgres connection. (Default: 10) */
  connectTimeoutSeconds?: number;
  logger?: Logger;
}

function clientLibDirOf(d: OracleDescriptor, o: OpenSourceOptions): string | undefined {
  const given = Array.isArray(o.oracleClientLibDir) ? o.oracleClientLibDir : [o.oracleClientLibDir];
  return pickOracleClientLibDir([...given, d.clientLibDir]);
}

/** The Postgres reader's options of a descriptor. */
export function postgresBranchOptions(d: PostgresDescriptor, o: OpenSourceOptions = {}): PostgresBranchOptions {
  return {
    branch: d.name, connectionString: d.connectionString, host: d.host, port: d.port, database: d.database, user: d.user, password: d.password,
    sslmode: d.sslmode, sslrootcert: d.sslrootcert, sslcert: d.sslcert, sslkey: d.sslkey,
    poolSize: o.poolSize ?? d.poolSize, connectTimeoutSeconds: o.connectTimeoutSeconds,
  };
}

/** The Oracle reader's options of a descriptor (thick mode when a client dir resolves or the connection asks). */
export function oracleBranchOptions(d: OracleDescriptor, o: OpenSourceOptions = {}): OracleBranchOptions {
  return {
    branch: d.name, user: d.user, password: d.password, dsn: d.dsn, host: d.host, port: d.port, serviceName: d.serviceName, sid: d.sid,
    poolSize: o.poolSize ?? d.poolSize, clientLibDir: clientLibDirOf(d, o), driverMode: d.driverMode, logger: o.logger,
  };
}

/** A pooled reader of batched Arrow rows (ETL extraction, DQ repair): Postgres binary COPY, Oracle array fetches. */
export function openSource(d: SourceDescriptor, o: OpenSourceOptions = {}): BranchSource {
  return d.kind === 'oracle' ? createOracleSource(oracleBranchOptions(d, o)) : createPostgresSource(postgresBranchOptions(d, o));
}

/** A logged, read-only, time-limited session (slice planning, watermarks). Close with `close()`. */
export async function openSourceExecutor(d: SourceDescriptor, o: OpenSourceOptions & { defaultTimeoutMs?: number } = {}): Promise<SourceExecutor> {
  if (d.kind === 'postgres') return createPgExecutor(pgConfigOf(d), { defaultTimeoutMs: o.defaultTimeoutMs, logger: o.logger });
  return createOracleExecutor(
    { user: d.user, password: d.password, connectString: oracleConnectString(d), clientLibDir: clientLibDirOf(d, o), driverMode: d.driverMode },
    { defaultTimeoutMs: o.defaultTimeoutMs, logger: o.logger },
  );
}

export interface OpenDialectOptions extends OpenSourceOptions {
  /** Timeout of catalog/sample/explain statements, ms. (Default: 60000) */
  timeoutMs?: number;
  /** Timeout of split-time boundary statements (Oracle DBMS_PARALLEL_EXECUTE / NTILE), ms. (Default: 600000) */
  splitTimeoutMs?: number;
  rowidMethod?: RowidMethod;
}

/** A split dialect (boundaries, EXPLAIN, SCN) on its own executor. Close with `dialect.exec.close()`. */
export async function openSourceDialect(d: SourceDescriptor, o: OpenDialectOptions = {}): Promise<SourceDialect> {
  const exec = await openSourceExecutor(d, { ...o, defaultTimeoutMs: o.timeoutMs });
  if (d.kind === 'postgres') return new PostgresDialect(exec);
  return new OracleDialect(exec, { rowidMethod: o.rowidMethod, splitTimeoutMs: o.splitTimeoutMs ?? 600_000, logger: o.logger });
}

/** Plain statements on a source (watermark capture, reconcile counts); rows keyed as the source names columns. */
export interface SourceQuery {
  engine: 'postgres' | 'oracle';
  /** host:port/db or the connect string, no credentials (stored with the watermark). */
  dsn: string;
  query(sql: string): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

/** Open a SourceQuery: a small Postgres pool, or one Oracle session. */
export async function openSourceQuery(d: SourceDescriptor, o: OpenSourceOptions = {}): Promise<SourceQuery> {
  if (d.kind === 'postgres') {
    const pool = createPgPool({ ...pgConfigOf(d), max: o.poolSize ?? 4, application_name: `tributary:${d.name}`, connectionTimeoutMillis: (o.connectTimeoutSeconds ?? 10) * 1000 });
    return { engine: 'postgres', dsn: sourceDsn(d), query: async (sql) => (await pool.query(sql)).rows, close: () => pool.end() };
  }
  const { oracledb } = loadOracle({ clientLibDir: clientLibDirOf(d, o), mode: d.driverMode, logger: o.logger });
  const conn = await oracledb.getConnection({ user: d.user, password: d.password, connectString: oracleConnectString(d) });
  return {
    engine: 'oracle', dsn: oracleConnectString(d),
    query: async (sql) => (await conn.execute<Record<string, unknown>>(sql, [], { outFormat: oracledb.OUT_FORMAT_OBJECT })).rows ?? [],
    close: () => conn.close(),
  };
}
