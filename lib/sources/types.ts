import type * as arrow from 'apache-arrow';

/** The source dialects Tributary reads branches from. */
export type Dialect = 'oracle' | 'postgres' | 'synthetic';

/**
 * Logical column types every source type is mapped to. They are exactly the
 * Iceberg types the lake stores: the primitives (int, long, float, double,
 * decimal(P,S), string, binary, boolean, date, timestamp, timestamptz) and
 * `list` of a primitive (a PostgreSQL array; elements are optional).
 */
export type PrimitiveType =
  | { kind: 'int' } | { kind: 'long' } | { kind: 'float' } | { kind: 'double' }
  | { kind: 'decimal'; precision: number; scale: number }
  | { kind: 'string' } | { kind: 'binary' } | { kind: 'boolean' }
  | { kind: 'date' } | { kind: 'timestamp' } | { kind: 'timestamptz' };

export type ColumnType = PrimitiveType | { kind: 'list'; element: PrimitiveType };

/** One column a source query projects, as described by the source. */
export interface SourceColumn {
  /** Canonical name: unquoted identifiers upper-cased (Oracle and Postgres agree then). */
  name: string;
  /** The name as the source spells it (when it differs from `name`). */
  sourceName?: string;
  type: ColumnType;
  /** The source's own type name, e.g. `NUMBER(12,2)` or `numeric(12,2)`. */
  sourceType: string;
  /** Unconstrained numeric whose precision/scale must be inferred from the data. */
  inferred?: boolean;
  /** An unconstrained numeric's digits as profiled from the load's rows (its `type` was inferred from them). */
  need?: { intDigits: number; scale: number };
  /** Postgres type OID (binary COPY decoding). */
  oid?: number;
}

/** A bind parameter with the kind that decides its SQL cast. */
export interface Bind {
  /** What the value is for, e.g. `cdc_watermark`, `initial_value`. */
  name: string;
  value: string | number;
  kind: 'timestamp' | 'timestamptz' | 'date' | 'number' | 'text';
}

/** A rendered query: SQL text with placeholders and its binds, in placeholder order. */
export interface RenderedQuery {
  sql: string;
  binds: Bind[];
  /** The source table (or subquery name) it reads: lets the synthetic source answer without SQL. */
  table?: string;
}

/** A column of the target (lake) schema a read must produce. */
export interface TargetField {
  name: string;
  type: ColumnType;
  /** The source column (`SourceColumn.name`) that fills it, when the lake names it otherwise (tables.json `naming`). (Default: `name`) */
  source?: string;
}

/** Values injected into every row (BRANCH_ID, insert_at, Recorded_updated_at). */
export type ConstValue = { type: ColumnType; value: string | number | bigint | null };

/** How to shape the batches a read yields. */
export interface ReadTarget {
  /** Fields in output order, with Arrow field metadata (field ids) in `schema`. */
  schema: arrow.Schema;
  fields: TargetField[];
  /** Target fields filled with a constant instead of a source column. */
  constants: Record<string, ConstValue>;
  /** Source columns whose maximum is tracked (watermarks); need not be in the target. */
  track: string[];
}

/** Maximum per tracked column, as a comparable value and its canonical text. */
export interface TrackedMax { text: string; cmp: number | bigint | string }

export interface ReadStats { rows: number; max: Record<string, TrackedMax | null> }

/** One branch's reader. Implementations: Postgres (binary COPY), Oracle (thick mode), synthetic. */
export interface BranchSource {
  readonly dialect: Dialect;
  readonly branch: string;
  /** Column names and types the query projects (runs it with no rows). */
  describe(q: RenderedQuery, signal?: AbortSignal): Promise<SourceColumn[]>;
  /** Max integer digits / scale of unconstrained numeric columns over the query's rows. */
  profileNumeric(q: RenderedQuery, columns: string[], signal?: AbortSignal): Promise<Record<string, { intDigits: number; scale: number }>>;
  /**
   * Stream the query's rows as Arrow batches shaped like `target` (missing
   * source columns become nulls; types converted to the target's).
   */
  read(q: RenderedQuery, columns: SourceColumn[], target: ReadTarget, opts: { batchSize: number; signal?: AbortSignal; stats: ReadStats }): AsyncIterable<arrow.RecordBatch>;
  /**
   * Run a read-only SQL text (no binds) and return its rows with every value as text (a
   * Postgres session in ISO DateStyle; Oracle columns by their upper-case aliases) — the
   * reconciler's digest queries, which detect deleted keys (tables.json `deletes: detect`).
   * Absent on sources that are not a database (the self-test's synthetic branches).
   * `serial`: no parallel plan (PostgreSQL): a check beside a load's other units would spend their CPU on workers.
   */
  textQuery?(sql: string, signal?: AbortSignal, opts?: { serial?: boolean }): Promise<Record<string, string | null>[]>;
  /**
   * Run a read-only SQL text (no binds) as textQuery does and return the first column of its
   * first row as raw bytes (a bytea as stored; null for no row or NULL): a packed key list of
   * megabytes without a text encoding on either side. PostgreSQL only.
   */
  bytesQuery?(sql: string, signal?: AbortSignal, opts?: { serial?: boolean }): Promise<Buffer | null>;
  close(): Promise<void>;
}
