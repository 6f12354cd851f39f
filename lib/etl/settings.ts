/**
 * Engine settings of one ETL run (seed 000's [etl] section). CLI flags and job
 * payloads override these defaults.
 */
export interface EtlSettings {
  mode: 'INITIAL' | 'INCREMENTAL';
  /** Branch keys to run; empty = every configured branch. */
  branches: string[];
  /** Tables to run (OWNER.TABLE, TABLE, subquery name or lake name); empty = all. */
  tables: string[];
  /** (Default: both — masters phase first, then transactions) */
  category: 'masters' | 'transactions' | 'both';
  /** Tables extracted at once per branch. (Default: 3) */
  maxTableWorkers: number;
  /** Tables loaded into the lake at once. (Default: 2) */
  loadWorkers: number;
  /** Connections per branch pool. (Default: 4) */
  poolSize: number;
  /** Retries of a unit after a connection/transient error. (Default: 5) */
  retries: number;
  /** Delay between retries, ms. (Default: 300000 — 5 minutes) */
  retryDelayMs: number;
  /** Rows per fetch round trip / Arrow batch when a branch sets none. (Default: 50000) */
  fetchBatchSize: number;
  /** Keep each table's staged Parquet after its load. (Default: false) */
  keepStaging: boolean;
  /** Staged Parquet bytes one merge holds at once. (Default: 268435456 — 256 MiB) */
  loadGroupMaxBytes: number;
  /** Expire snapshots older than this after each load. (Default: 7) */
  snapshotExpireDays: number;
  /** Snapshots always kept. (Default: 1) */
  snapshotMinToKeep: number;
  /** Run snapshot expiry after loads. (Default: true) */
  snapshotMaintenance: boolean;
  /** After a merge, rewrite a partition whose position deletes cover at least this share of its rows (or exceed 16 files); 0 turns it off. (Default: 0.1) */
  compactDeletedRatio: number;
  /** Lake namespace of the data tables. (Default: etl) */
  namespace: string;
  /** Rows per staged Parquet file (each becomes one lake data file on a full replace; smaller files overlap encoding with extraction and bound memory). (Default: 262144) */
  stagingRowsPerFile: number;
  /** INCREMENTAL: bytes of small units' rows the run holds in memory instead of staging them as Parquet. (Default: 134217728 — 128 MiB) */
  stagingMemoryBytes: number;
  /** Parquet encoder threads. (Default: 1) */
  encoderThreads: number;
  /** Staged Parquet compression. (Default: snappy) */
  compression: 'snappy' | 'zstd' | 'uncompressed' | 'lz4';
}

export const DEFAULT_SETTINGS: EtlSettings = {
  mode: 'INCREMENTAL', branches: [], tables: [], category: 'both', maxTableWorkers: 3, loadWorkers: 2, poolSize: 4, retries: 5,
  retryDelayMs: 300_000, fetchBatchSize: 50_000, keepStaging: false, loadGroupMaxBytes: 256 * 1024 * 1024, snapshotExpireDays: 7,
  snapshotMinToKeep: 1, snapshotMaintenance: true, compactDeletedRatio: 0.1, namespace: 'etl', stagingRowsPerFile: 262_144, stagingMemoryBytes: 128 * 1024 * 1024, encoderThreads: 1, compression: 'snappy',
};

/** The message refusing an INCREMENTAL unit that has no watermark yet (seed 000, cutover note). */
export function cutoverMessage(table: string, branch: string): string {
  return `etl: no watermark for table ${table} on branch ${branch}: the first run against a fresh metastore must be a full --mode INITIAL (there is no prior watermark state for an INCREMENTAL load to run against)`;
}
