import type * as arrow from 'apache-arrow';

/** An Iceberg list type (spec: "Nested Types"): its element has its own field id. */
export interface IcebergListType {
  type: 'list';
  'element-id': number;
  /** A primitive type string (lists of lists, structs and maps are not written). */
  element: string;
  'element-required': boolean;
}

/** A primitive type string (boolean, int, long, float, double, decimal(P,S), date, time, timestamp, timestamptz, string, uuid, fixed[L], binary) or a list. */
export type IcebergType = string | IcebergListType;

/** One Iceberg schema field (spec: "Schemas and Data Types"): a primitive or a list of a primitive. */
export interface IcebergField {
  id: number;
  name: string;
  required: boolean;
  type: IcebergType;
  doc?: string;
}

export interface IcebergSchema {
  type: 'struct';
  'schema-id': number;
  'identifier-field-ids'?: number[];
  fields: IcebergField[];
}

export interface PartitionField { 'source-id': number; 'field-id': number; name: string; transform: string }
export interface PartitionSpec { 'spec-id': number; fields: PartitionField[] }

/**
 * Snapshot ids are bigints everywhere: other writers draw them from the whole 64-bit range, above
 * what a double holds exactly (metadata files are parsed and written by metadata-json.ts).
 */
export interface Snapshot {
  'snapshot-id': bigint;
  'parent-snapshot-id'?: bigint;
  'sequence-number': number;
  'timestamp-ms': number;
  'manifest-list': string;
  summary: Record<string, string> & { operation: 'append' | 'replace' | 'overwrite' | 'delete' };
  'schema-id'?: number;
}

/** Table metadata JSON, format v2 (spec: "Table Metadata"). */
export interface TableMetadata {
  'format-version': 2;
  'table-uuid': string;
  location: string;
  'last-sequence-number': number;
  'last-updated-ms': number;
  'last-column-id': number;
  'current-schema-id': number;
  schemas: IcebergSchema[];
  'default-spec-id': number;
  'partition-specs': PartitionSpec[];
  'last-partition-id': number;
  'default-sort-order-id': number;
  'sort-orders': { 'order-id': number; fields: unknown[] }[];
  properties: Record<string, string>;
  /** Null when the table has no snapshot (read from -1, null or absent; written as -1). */
  'current-snapshot-id': bigint | null;
  snapshots: Snapshot[];
  'snapshot-log': { 'snapshot-id': bigint; 'timestamp-ms': number }[];
  'metadata-log': { 'metadata-file': string; 'timestamp-ms': number }[];
  refs: Record<string, { 'snapshot-id': bigint; type: 'branch' | 'tag' }>;
  statistics?: unknown[];
}

/** What every committing operation returns. */
export interface CommitResult {
  /** The new snapshot's id, or null when the operation had nothing to commit. */
  snapshotId: bigint | null;
  sequenceNumber: number;
  metadataLocation: string;
  addedDataFiles: number;
  addedDeleteFiles: number;
  removedFiles: number;
  addedRecords: number;
  /** Commit attempts used (1 when no concurrent writer interfered). */
  attempts: number;
}

/** A key range on one column, used to prune files by their bounds and to filter rows. */
export interface ColumnRange {
  column: string;
  /** Inclusive lower bound. */
  gte?: unknown;
  /** Inclusive upper bound. */
  lte?: unknown;
  /** Exact set of values. */
  in?: unknown[];
}

export type Batches = AsyncIterable<arrow.RecordBatch> | Iterable<arrow.RecordBatch>;

export interface ScanOptions {
  /** Columns to return, in this order. (Default: all columns of the current schema) */
  columns?: string[];
  /** Identity-partition values that rows must have, e.g. `{ BRANCH_ID: 3 }`. */
  partition?: Record<string, unknown>;
  /** Read this snapshot instead of the current one. */
  snapshotId?: bigint;
  /** Row filters: files are pruned by bounds, then rows are filtered exactly. */
  filter?: ColumnRange[];
  /** Stop after this many rows. (Default: unlimited) */
  limit?: number;
  /**
   * Keep the columns read from each data file (before deletes are applied) here and take them
   * from it on the next scan. Data files are immutable, so an entry keyed by file path and
   * columns can never be stale; the caller bounds the cache's size. (Default: none)
   */
  fileCache?: ScanFileCache;
}

/** A cache of data files' projected batches (see ScanOptions.fileCache). */
export interface ScanFileCache {
  get(key: string): arrow.RecordBatch[] | undefined;
  set(key: string, batches: arrow.RecordBatch[]): void;
}

export interface MergeOptions {
  /** Key columns: a row replaces the row with equal keys in the same partition. */
  keys: string[];
  /** On updated rows keep the table's existing value of these columns (e.g. `insert_at`). */
  carryForward?: string[];
  /** Return, for each updated row, its keys and the previous values of these columns. */
  returnPrevious?: string[];
  /**
   * Incoming rows sharing a key: `last` keeps the last of them (an upsert stream's
   * semantics), `error` refuses the merge before anything is written (a loader whose
   * input must be unique per key, lib/etl). (Default: last)
   */
  duplicateKeys?: 'last' | 'error';
  /**
   * Keys (one tuple per row, in `keys` order, partition columns included) whose live rows this
   * commit removes — source deletes applied in the same snapshot as the upsert. An incoming row
   * with one of these keys is dropped: the delete was seen after it. Values as `deleteWhere` takes
   * them (timestamps as text keep their microseconds). (Default: none)
   */
  deleteKeys?: unknown[][];
  /**
   * Delete keys that arrive while the merge runs (a source's key comparison still reading when
   * the load starts): the upserts are matched and written first, then these keys' live rows are
   * removed in the same commit. A key that is also incoming keeps its incoming row (it was written
   * before the key was known; a later comparison finds it again). A rejection fails the merge with
   * nothing committed. Not with `deleteKeys`. (Default: none)
   */
  lateDeleteKeys?: Promise<LateDeleteKeys>;
  /** Rewrite the `deleteKeys` rows with `column` set to `value` instead of removing them (a soft delete). (Default: remove) */
  softDelete?: { column: string; value: unknown };
  /**
   * Extra snapshot summary properties of the commit (names outside the spec's, e.g.
   * `tributary.cdc.lsn`): what a reader of the snapshot alone must know about it. (Default: none)
   */
  summary?: Record<string, string>;
  /**
   * A data file's values of the merge's single integer match column, when the caller holds them
   * already (a worker's key cache: lib/etl/int-key-files.ts), aligned to the file's row positions
   * (NaN for a null), by file path. A candidate file found here, whose other needed columns the
   * manifest shows constant, is matched without being opened. Anything else (no entry, a length
   * other than the file's record count, a null key) is read from the file. (Default: every
   * candidate file is read)
   */
  knownKeys?: (path: string) => Float64Array | undefined;
}

/** MergeOptions.lateDeleteKeys once known. */
export interface LateDeleteKeys {
  /** As `deleteKeys`. */
  keys: unknown[][];
  /**
   * Where the keys' live rows are: data file and row position, read at snapshot `snapshotId`
   * (the reader had the files' key columns at hand). When that is the merge's base snapshot and
   * every file is one of its live data files, the rows are deleted without reading a file; else
   * the keys are matched by reading the files. (Default: matched by reading)
   */
  at?: { snapshotId: string; rows: { path: string; pos: number }[] };
}

export interface MergeResult extends CommitResult {
  inserted: number;
  updated: number;
  /** Present when `returnPrevious` was given: one object per updated row (keys + requested columns). */
  previous?: Record<string, unknown>[];
  /** Live rows removed (or soft-deleted) by `deleteKeys`. */
  deleted: number;
  /** The same, per partition touched. */
  deletedByPartition?: { partition: Record<string, unknown>; rows: number }[];
}

export interface DeleteOptions {
  partition?: Record<string, unknown>;
  keys?: { columns: string[]; values: unknown[][] };
}

export interface DataFileInfo {
  path: string;
  content: 'data' | 'position-deletes' | 'equality-deletes';
  partition: Record<string, unknown>;
  recordCount: number;
  fileSizeInBytes: number;
  /** Lower and upper bounds of the integer (`int`, `long`) columns a data file records them for, by column name (for planning over keys without reading the files). */
  intBounds?: Record<string, { lower: bigint; upper: bigint }>;
}
