import { createOracleSource, createPostgresSource, createSyntheticSource, resolveOracleClientLibDir } from '../sources';
import type { BranchConfig } from '../connections';
import type { BranchHandle } from './runner';

export interface BranchBuildOptions {
  /** --pool-size: overrides every branch's own pool_size. */
  poolSizeOverride?: number;
  /** Pool size when neither flag nor branch sets one. (Default: 4) */
  defaultPoolSize: number;
  /** $ORACLE_CLIENT_LIB_DIR (the caller reads the environment). */
  oracleClientLibDirEnv?: string;
  /** --oracle-client-lib-dir / configured dir. */
  oracleClientLibDirConfig?: string;
  /** Seconds to wait for a branch connection. (Default: 10) */
  connectTimeoutSeconds?: number;
}

const num = (v: unknown) => (v === undefined || v === null || v === '' ? undefined : Number(v));

/** Branch connection records → readers (Oracle thick mode, Postgres binary COPY). */
export function branchHandles(configs: BranchConfig[], o: BranchBuildOptions): BranchHandle[] {
  return configs.map((c) => {
    const p = c.params;
    const poolSize = o.poolSizeOverride ?? num(p.pool_size) ?? o.defaultPoolSize;
    const fetchBatchSize = num(p.fetch_batch_size);
    if (c.kind === 'oracle') {
      const source = createOracleSource({
        branch: c.key, user: String(p.user ?? ''), password: c.secrets.password ?? '', poolSize,
        dsn: (p.dsn as string | undefined) ?? c.secrets.connection_string, host: p.host as string | undefined, port: num(p.port),
        serviceName: (p.service_name ?? p.serviceName) as string | undefined, sid: p.sid as string | undefined,
        clientLibDir: resolveOracleClientLibDir({ envValue: o.oracleClientLibDirEnv, configValue: o.oracleClientLibDirConfig ?? (p.oracle_client_lib_dir as string | undefined) }),
      });
      return { key: c.key, source, fetchBatchSize };
    }
    const source = createPostgresSource({
      branch: c.key, poolSize, connectTimeoutSeconds: o.connectTimeoutSeconds,
      connectionString: c.secrets.url ?? c.secrets.connection_string,
      host: p.host as string | undefined, port: num(p.port), database: (p.database ?? p.dbname) as string | undefined,
      user: p.user as string | undefined, password: c.secrets.password,
    });
    return { key: c.key, source, fetchBatchSize };
  });
}

/** Synthetic branches for --self-test. (Default: 3 branches of 2000 rows per table) */
export function syntheticBranches(count = 3, rowsPerTable = 2000): BranchHandle[] {
  return Array.from({ length: count }, (_, i) => {
    const key = `selftest_${String.fromCharCode(97 + i)}`;
    return { key, source: createSyntheticSource({ branch: key, branchIndex: i, rowsPerTable }) };
  });
}
