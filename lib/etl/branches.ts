import { createSyntheticSource, openSource } from '../sources';
import { branchDescriptorOf, type BranchConfig } from '../connections';
import type { BranchHandle } from './runner';

export interface BranchBuildOptions {
  /** --pool-size: overrides every branch's own pool_size. */
  poolSizeOverride?: number;
  /** Pool size when neither flag nor branch sets one. (Default: 4) */
  defaultPoolSize: number;
  /** The ORACLE_CLIENT_LIB_DIR setting (the caller reads the environment). */
  oracleClientLibDirEnv?: string;
  /** --oracle-client-lib-dir / configured dir. */
  oracleClientLibDirConfig?: string;
  /** Seconds to wait for a branch connection. (Default: 10) */
  connectTimeoutSeconds?: number;
}

/** Branch connection records → readers (Oracle, thick mode for 11g; Postgres binary COPY, TLS per sslmode). */
export function branchHandles(configs: BranchConfig[], o: BranchBuildOptions): BranchHandle[] {
  return configs.map((c) => {
    const d = branchDescriptorOf(c);
    const source = openSource(d, {
      poolSize: o.poolSizeOverride ?? d.poolSize ?? o.defaultPoolSize,
      connectTimeoutSeconds: o.connectTimeoutSeconds,
      // the setting first, then the flag, then the connection's own dir (the first that exists wins)
      oracleClientLibDir: [o.oracleClientLibDirEnv, o.oracleClientLibDirConfig],
    });
    return { key: c.key, source, fetchBatchSize: d.fetchBatchSize };
  });
}

/** Synthetic branches for --self-test. (Default: 3 branches of 2000 rows per table) */
export function syntheticBranches(count = 3, rowsPerTable = 2000): BranchHandle[] {
  return Array.from({ length: count }, (_, i) => {
    const key = `selftest_${String.fromCharCode(97 + i)}`;
    return { key, source: createSyntheticSource({ branch: key, branchIndex: i, rowsPerTable }) };
  });
}
