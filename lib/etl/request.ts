import { z } from 'zod';
import { durationMsField, enumField, intField, listField, namespaceField, numberField } from '../config/request';
import { DEFAULT_SETTINGS as D, type EtlSettings } from './settings';

/**
 * One ETL run as asked for, by `tributary etl` flags or an `etl.run` payload:
 * the same fields, bounds and messages for both (pure zod, no engine code, so
 * the web process validates without loading the engine). Names follow the
 * seed's flags in camelCase (`--max-table-workers` ↔ `maxTableWorkers`).
 */
export const EtlRequest = z.strictObject({
  mode: z.string({ error: 'required (INITIAL or INCREMENTAL)' }).pipe(enumField(['INITIAL', 'INCREMENTAL'])).meta({ enum: ['INITIAL', 'INCREMENTAL'] }),
  /** Branch keys; empty = every configured branch. (Default: all) */
  branch: listField.default([]),
  /** OWNER.TABLE, TABLE, subquery name or lake name; empty = all. (Default: all) */
  tables: listField.default([]),
  /** (Default: both — masters phase first, then transactions) */
  category: enumField(['masters', 'transactions', 'both']).default('both'),
  /** Synthetic branches and tables, no external database. (Default: false) */
  selfTest: z.boolean().default(false),
  /** Keep each table's staged Parquet after its load. (Default: false) */
  keepStaging: z.boolean().default(false),
  /** Print each unit's rendered SQL and binds; extract and write nothing. (Default: false) */
  plan: z.boolean().default(false),
  maxTableWorkers: intField(1, 64).optional(),
  loadWorkers: intField(1, 64).optional(),
  /** Connections per branch; given, it overrides each branch's pool_size. */
  poolSize: intField(1, 64).optional(),
  retries: intField(0, 100).optional(),
  /** Seconds (or 30s / 5m / 250ms) between retries. (Default: 300 s) */
  retryDelay: durationMsField(86_400_000).optional(),
  fetchBatchSize: intField(1, 1_000_000).optional(),
  loadGroupMaxBytes: intField(1 << 20, 2 ** 40).optional(),
  snapshotExpireDays: intField(0, 36_500).optional(),
  snapshotMinToKeep: intField(1, 10_000).optional(),
  /** Run snapshot expiry after loads. (Default: true) */
  snapshotMaintenance: z.boolean().default(true),
  compactDeletedRatio: numberField(0, 1).optional(),
  namespace: namespaceField.optional(),
  encoderThreads: intField(1, 16).optional(),
  compression: enumField(['snappy', 'zstd', 'lz4', 'uncompressed']).optional(),
  /** tables.json to use: on the CLI any path; in a job a path inside the data folder. (Default: the configured tables.json) */
  tablesFile: z.string().min(1).max(4096).optional(),
  /** tables.json content inline (an array of entries, or `{ "tables": [...] }`), instead of a file. */
  tablesJson: z.unknown().optional(),
}).refine((r) => r.tablesFile === undefined || r.tablesJson === undefined, { message: 'give tablesFile or tablesJson, not both', path: ['tablesJson'] });

export type EtlRequest = z.infer<typeof EtlRequest>;

/** The engine settings a request asks for (defaults filled in). */
export function etlSettingsOf(r: EtlRequest): EtlSettings {
  return {
    ...D,
    mode: r.mode, branches: r.branch, tables: r.tables, category: r.category, keepStaging: r.keepStaging,
    maxTableWorkers: r.maxTableWorkers ?? D.maxTableWorkers,
    loadWorkers: r.loadWorkers ?? D.loadWorkers,
    poolSize: r.poolSize ?? D.poolSize,
    retries: r.retries ?? D.retries,
    retryDelayMs: r.retryDelay ?? D.retryDelayMs,
    fetchBatchSize: r.fetchBatchSize ?? D.fetchBatchSize,
    loadGroupMaxBytes: r.loadGroupMaxBytes ?? D.loadGroupMaxBytes,
    snapshotExpireDays: r.snapshotExpireDays ?? D.snapshotExpireDays,
    snapshotMinToKeep: r.snapshotMinToKeep ?? D.snapshotMinToKeep,
    snapshotMaintenance: r.snapshotMaintenance,
    compactDeletedRatio: r.compactDeletedRatio ?? D.compactDeletedRatio,
    encoderThreads: r.encoderThreads ?? D.encoderThreads,
    compression: r.compression ?? D.compression,
    namespace: r.namespace ?? (r.selfTest ? 'selftest' : D.namespace),
  };
}
