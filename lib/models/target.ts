import type { LakeAccess } from './source-sql';

export interface QueryResult {
  columns: { name: string; type: string }[];
  rows: Record<string, unknown>[];
}

/**
 * Where models materialise: the embedded ClickHouse (chdb) or a ClickHouse
 * server. Both speak ClickHouse SQL; the engine only needs to run statements
 * and read rows.
 */
export interface Target {
  readonly kind: 'chdb' | 'clickhouse';
  /** Database the models are created in. */
  readonly database: string;
  /** How this target reads lake files (for source()). */
  readonly lake: LakeAccess;
  /** A statement without a result (DDL, INSERT … SELECT). */
  command(sql: string, signal?: AbortSignal): Promise<void>;
  /** A query, its rows as objects. */
  query(sql: string, signal?: AbortSignal): Promise<QueryResult>;
  /**
   * `EXPLAIN AST <sql>`: ClickHouse's parse tree, one row per node. Sent as is
   * (no `FORMAT` appended: one would attach to the explained query), read as
   * raw text. Parses only; runs nothing.
   */
  explainAst(sql: string, signal?: AbortSignal): Promise<string[]>;
  close(): Promise<void>;
}
