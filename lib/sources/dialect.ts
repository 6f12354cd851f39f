import type { SourceExecutor } from './source-executor';

/** Kind of a split column's values (decides sampling and literal rendering). */
export type ColumnKind = 'number' | 'date' | 'timestamp' | 'timestamptz';

export interface ColumnCandidate {
  column: string;
  kind: ColumnKind;
  indexed: boolean;
  /** Estimated distinct values (null when the source has no statistics). */
  ndv: number | null;
}

/** One physical range; lo/hi are the engine's address literals (ROWID, ctid). */
export interface PhysicalRange { lo: string; hi: string }

export interface PhysicalPlan {
  ranges: PhysicalRange[];
  /** How the ranges were found, e.g. `dbms_parallel_execute`, `dba_extents`, `ntile`, `relpages`. */
  method: string;
}

export interface PartitionSlice {
  /** Partition (or child relation) name. */
  name: string;
  /** Replacement for the driving table's name in the template. */
  tableRef: string;
}

export interface ExplainResult {
  /** Access path on the driving table, e.g. `TABLE ACCESS BY ROWID RANGE`, `Tid Range Scan`. */
  accessPath: string;
  /** Other tables the plan reads in full, with their estimated row counts. */
  fullScans: { table: string; rows: number | null }[];
  /** The plan as text lines (for --explain and the log). */
  lines: string[];
}

/**
 * What planning needs from a source engine. Oracle and PostgreSQL implement
 * it now; SQL Server (clustered-key ranges, `$PARTITION`, `TOP (n)`) and
 * generic JDBC (column ranges only: physical/partition methods throw) fit the
 * same shape later.
 */
export interface SourceDialect {
  readonly engine: 'oracle' | 'postgres' | 'sqlserver' | 'jdbc';
  readonly exec: SourceExecutor;
  /** Label of the physical candidate in the probe panel (`ROWID`, `ctid`). */
  readonly physicalLabel: string;
  /** Throws a clear error when the table does not exist. */
  assertTable(table: string): Promise<void>;
  isPartitioned(table: string): Promise<boolean>;
  /** One slice per partition (or per subpartition / leaf). Empty when not partitioned. */
  partitions(table: string, opts: { subpartitions: boolean; templateRef: string }): Promise<PartitionSlice[]>;
  /**
   * Up to `chunks` contiguous physical ranges covering the table. With
   * `bounded` (the probe) no method may read the whole table (Oracle: no NTILE;
   * sampled ROWIDs instead).
   */
  physicalRanges(table: string, chunks: number, opts?: { bounded?: boolean; sampleRows?: number }): Promise<PhysicalPlan>;
  /** Row estimate from statistics (0 when unknown). */
  estimatedRows(table: string): Promise<number>;
  /** Predicate for one range; open below for the first, open above for the last. */
  physicalPredicate(alias: string, r: PhysicalRange, pos: { first: boolean; last: boolean }): string;
  columnKind(table: string, column: string): Promise<ColumnKind>;
  /** Up to `sampleRows` non-null values from a bounded sample, sorted ascending, as text. */
  sampleColumn(table: string, column: string, kind: ColumnKind, sampleRows: number): Promise<string[]>;
  /** SQL literal for a sampled text value. */
  literal(value: string, kind: ColumnKind): string;
  /** Indexed numeric/date columns with NDV > 1, best first (at most `limit`). */
  columnCandidates(table: string, limit: number): Promise<ColumnCandidate[]>;
  /** Segment size in bytes (dba_segments / pg_relation_size). */
  tableBytes(table: string): Promise<number>;
  /** Wrap a slice so at most `n` rows come back (`ROWNUM <= n` / `LIMIT n`). */
  rowCap(sql: string, n: number): string;
  explain(sql: string, driving: { table: string; alias: string }): Promise<ExplainResult>;
  /** Table reference reading as of a snapshot (Oracle `AS OF SCN n`); undefined when unsupported. */
  asOf?(ref: string, scn: string): string;
  /** The current snapshot watermark (Oracle SCN) for --as-of-scn current. */
  currentScn?(): Promise<string>;
}
