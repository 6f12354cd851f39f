import { z } from 'zod';
import { durationMsField, enumField, intField, listField, namespaceField, numberField, typeError } from '../config/request';
import { DEFAULT_SETTINGS as D, type EtlSettings } from './settings';

/**
 * One ETL run as asked for, by `tributary etl` flags or an `etl.run` payload:
 * the same fields, bounds and messages for both (pure zod, no engine code, so
 * the web process validates without loading the engine). Names follow the
 * seed's flags in camelCase (`--max-table-workers` ↔ `maxTableWorkers`).
 */
export const EtlRequest = z.strictObject({
  mode: z.string({ error: typeError('INITIAL or INCREMENTAL') }).pipe(enumField(['INITIAL', 'INCREMENTAL'])).meta({ enum: ['INITIAL', 'INCREMENTAL'] }).describe('INITIAL (full or ranged load) or INCREMENTAL (changes since the last watermark).'),
  branch: listField.default([]).describe('Branch keys; empty = every configured branch. (Default: all)'),
  tables: listField.default([]).describe('OWNER.TABLE, TABLE, subquery name or lake name; empty = all. (Default: all)'),
  category: enumField(['masters', 'transactions', 'both']).default('both').describe('masters, transactions or both (the masters phase runs first). (Default: both)'),
  selfTest: z.boolean().default(false).describe('Synthetic branches and tables, no external database. (Default: false)'),
  keepStaging: z.boolean().default(false).describe("Keep each table's staged Parquet after its load. (Default: false)"),
  plan: z.boolean().default(false).describe("Print each unit's rendered SQL and binds; extract and write nothing. (Default: false)"),
  maxTableWorkers: intField(1, 64).optional().describe('Tables extracted at once per branch, 1–64. (Default: 3)'),
  loadWorkers: intField(1, 64).optional().describe('Tables loaded into the lake at once, 1–64. (Default: 2)'),
  poolSize: intField(1, 64).optional().describe("Connections per branch; given, it overrides each branch's pool_size."),
  retries: intField(0, 100).optional().describe('Retries after a connection or transient error, 0–100. (Default: 5)'),
  retryDelay: durationMsField(86_400_000).optional().describe('Seconds (or 30s / 5m / 250ms) between retries. (Default: 300 s)'),
  fetchBatchSize: intField(1, 1_000_000).optional().describe('Rows per fetch round trip when a branch sets none. (Default: 50000)'),
  loadGroupMaxBytes: intField(1 << 20, 2 ** 40).optional().describe('Staged Parquet bytes one merge holds at once. (Default: 268435456 = 256 MiB)'),
  snapshotExpireDays: intField(0, 36_500).optional().describe('Expire lake snapshots older than this many days after each load. (Default: 7)'),
  snapshotMinToKeep: intField(1, 10_000).optional().describe('Snapshots always kept. (Default: 1)'),
  snapshotMaintenance: z.boolean().default(true).describe('Run snapshot expiry after loads. (Default: true)'),
  compactDeletedRatio: numberField(0, 1).optional().describe('After a merge, rewrite partitions whose deleted rows reach this share, 0–1 (0 = never). (Default: 0.1)'),
  namespace: namespaceField.optional().describe('Lake namespace of the data tables. (Default: etl; self-test: selftest)'),
  encoderThreads: intField(1, 16).optional().describe('Parquet encoder threads, 1–16. (Default: 1)'),
  compression: enumField(['snappy', 'zstd', 'lz4', 'uncompressed']).optional().describe('Staged and lake Parquet codec. (Default: snappy)'),
  tablesFile: z.string().min(1).max(4096).optional().describe('tables.json to use: on the CLI any path; in a job a path inside the data folder. (Default: the configured tables.json)'),
  tablesJson: z.unknown().optional().describe('tables.json content inline (an array of entries, or `{ "tables": [...] }`), instead of a file.'),
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
