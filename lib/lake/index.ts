/**
 * Tributary's Iceberg lake: a SQL catalog in Postgres (pyiceberg SqlCatalog /
 * JdbcCatalog layout), format-v2 tables with Avro manifests and Parquet data
 * files carrying field ids, compare-and-swap commits.
 *
 * Public entry of `lib/lake/`; nothing deeper is imported by other engines
 * (except `parquet-writer-properties.mjs`, by lib/etl's encoder worker thread,
 * which runs without a TypeScript loader). Layout: README.md.
 */
import type * as arrow from 'apache-arrow';
import type pg from 'pg';
import type { Logger } from '../log';
import type {
  Batches, CommitResult, DataFileInfo, DeleteOptions, MergeOptions, MergeResult, ScanOptions, Snapshot, TableMetadata,
} from './types';
import { openLakeImpl, openTableFolderImpl } from './lake';
import type { Storage } from './storage';
import type { RemoveOrphansOptions, RemoveOrphansResult } from './orphans';

export type {
  Batches, ColumnRange, CommitResult, DataFileInfo, DeleteOptions, IcebergField, LateDeleteKeys, IcebergSchema, MergeOptions, MergeResult,
  PartitionSpec, ScanFileCache, ScanOptions, Snapshot, TableMetadata,
} from './types';
export type { Storage, StoredObject } from './storage';
export type { OrphanFile, RemoveOrphansOptions, RemoveOrphansResult } from './orphans';
export type { Catalog, TableIdent } from './catalog';
export type { TableRequirement, TableUpdate } from './table-update';
export { parseIdent } from './catalog';
export { cellValue, csvCell, csvLine, csvToBatch, plainRow, plainValue, timestampIso } from './format';
// row access for engines that check or filter staged batches (lib/etl's duplicate-key check)
export { takeBatch, valueAt } from './arrow-util';
export { encodeParquet, readParquetBatches } from './parquet';
// a position-delete file's rows by data file (lib/etl's `deletes: detect` reads them beside the scan)
export { addPositions } from './position-deletes';
export { lakeEncoders, ParquetEncoderPool, STREAM_MIN_ROWS, type EncodeOptions, type EncodingStream } from './encoder-pool';
export { DICTIONARY_PAGE_LIMIT, writerProperties, type ParquetCompression, type WriterPropertiesOptions } from './parquet-writer-properties.mjs';
export { FIELD_ID, typeString } from './schema';
export type { S3Settings } from './storage-s3';
import type { S3Settings } from './storage-s3';

export interface LakeOptions {
  /** Pool on the database holding `iceberg_tables` / `iceberg_namespace_properties`. */
  pool: pg.Pool;
  /** Warehouse root: `file:///abs/path`, an absolute path, or `s3://bucket/prefix`. */
  warehouse: string;
  /** Object-store settings for an `s3://` warehouse (credentials, region, endpoint, path style). (Default: the SDK's defaults) */
  s3?: S3Settings;
  /** Catalog name in the catalog tables. (Default: 'tributary') */
  catalogName?: string;
  /** (Default: silent) */
  logger?: Logger;
}

export interface CreateTableOptions {
  /** Arrow schema; nullable flags become optional/required. */
  schema: arrow.Schema;
  /** Identity-partition columns. (Default: none) */
  partitionBy?: string[];
  /** Table properties, merged over the defaults (zstd Parquet, name mapping…). */
  properties?: Record<string, string>;
  /** Merge/identifier key columns, recorded as the schema's identifier-field-ids (must be required). (Default: none) */
  identifierColumns?: string[];
}

export interface Lake {
  readonly catalogName: string;
  readonly warehouse: string;
  /** The warehouse's object storage (file:// or s3://), for callers that place files the lake will adopt. */
  readonly storage: Storage;
  createNamespace(ns: string, props?: Record<string, string>): Promise<void>;
  listNamespaces(): Promise<string[]>;
  namespaceProperties(ns: string): Promise<Record<string, string>>;
  setNamespaceProperties(ns: string, props: Record<string, string>, remove?: string[]): Promise<void>;
  /** Refuses when the namespace still holds tables. */
  dropNamespace(ns: string): Promise<void>;
  listTables(ns?: string): Promise<string[]>;
  tableExists(ident: string): Promise<boolean>;
  /**
   * The table's current metadata file, or null when no table has this name (a view's row is none),
   * without reading the file: for callers that pass the metadata on as it is (the REST catalog
   * serves tables of any format version other writers left in a shared catalog).
   */
  tableMetadataLocation(ident: string): Promise<string | null>;
  createTable(ident: string, opts: CreateTableOptions): Promise<LakeTable>;
  loadTable(ident: string): Promise<LakeTable>;
  dropTable(ident: string, opts?: { purge?: boolean }): Promise<void>;
  renameTable(from: string, to: string): Promise<void>;
}

export interface LakeTable {
  readonly ident: string;
  readonly location: string;
  arrowSchema(): arrow.Schema;
  metadata(): TableMetadata;
  metadataLocation(): string;
  currentSnapshotId(): bigint | null;
  snapshots(): Snapshot[];
  /** Re-read the table from the catalog. */
  refresh(): Promise<void>;
  append(batches: Batches): Promise<CommitResult>;
  /** Adopt already-written Parquet files (field ids of the table schema) without re-encoding. */
  appendDataFiles(paths: string[]): Promise<CommitResult>;
  /**
   * Replace the whole table, or only the rows of one partition value (`partition`) or of several
   * (`partitions`), by already-written Parquet files (adopted as they are, like `appendDataFiles`)
   * in one atomic overwrite snapshot.
   */
  replaceDataFiles(paths: string[], opts?: { partition?: Record<string, unknown>; partitions?: Record<string, unknown>[] }): Promise<CommitResult>;
  /** Replace the whole table, or only the rows of one partition value or of several, by these rows. */
  overwrite(batches: Batches, opts?: { partition?: Record<string, unknown>; partitions?: Record<string, unknown>[] }): Promise<CommitResult>;
  merge(batches: Batches, opts: MergeOptions): Promise<MergeResult>;
  deleteWhere(opts: DeleteOptions): Promise<CommitResult & { deleted: number }>;
  scan(opts?: ScanOptions): AsyncIterable<arrow.RecordBatch>;
  evolveSchema(target: arrow.Schema): Promise<{ changes: string[]; rewritten: boolean }>;
  expireSnapshots(opts?: { now?: number; maxSnapshotAgeMs?: number; minSnapshotsToKeep?: number }): Promise<{ expiredSnapshots: number; deletedFiles: string[] }>;
  compact(opts?: { partition?: Record<string, unknown> }): Promise<CommitResult>;
  /**
   * Delete files under the table's location that no metadata reachable from the catalog references
   * and that are older than `olderThanMs` (Default: 3 days), as Iceberg's `remove_orphan_files`;
   * `dryRun` only lists them.
   */
  removeOrphanFiles(opts?: RemoveOrphansOptions): Promise<RemoveOrphansResult>;
  /** Live data and delete files of the current (or given) snapshot. */
  files(snapshotId?: bigint): Promise<DataFileInfo[]>;
}

/** Open the lake: the catalog in `pool`'s database, files under `warehouse`. */
export function openLake(opts: LakeOptions): Lake {
  return openLakeImpl(opts);
}

/** Open a table from its folder without a catalog, for reading (e.g. tables written by Spark/Java/Athena). */
export function openTableFolder(dir: string): Promise<LakeTable> {
  return openTableFolderImpl(dir);
}

