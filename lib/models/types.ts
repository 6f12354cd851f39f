/** Shapes shared by the models engine (pure data, no I/O). */

export type Materialization = 'view' | 'table' | 'incremental';

/** dbt's `on_schema_change` of an incremental model (what each does: schema-change.ts). */
export type OnSchemaChange = 'ignore' | 'fail' | 'append_new_columns' | 'sync_all_columns';
export const ON_SCHEMA_CHANGE: readonly OnSchemaChange[] = ['ignore', 'fail', 'append_new_columns', 'sync_all_columns'];

export interface ModelConfig {
  /** (Default: view, as in dbt) */
  materialized: Materialization;
  /** ClickHouse table engine of table/incremental models. (Default: MergeTree) */
  engine?: string;
  /** ORDER BY of a MergeTree table. (Default: tuple()) */
  order_by?: string | string[];
  partition_by?: string;
  /** Key whose rows an incremental run replaces; without it new rows are appended. */
  unique_key?: string | string[];
  /** What an incremental run does when the model's columns differ from the table's. (Default: ignore, as in dbt) */
  on_schema_change?: OnSchemaChange;
  tags: string[];
  /** false leaves the model out of every command. (Default: true) */
  enabled: boolean;
  /**
   * ClickHouse session settings for this model's query, over Tributary's dbt
   * defaults (DBT_SESSION_SETTINGS in session-settings.ts); dbt-clickhouse's
   * `query_settings`. (Default: none)
   */
  query_settings?: Record<string, string | number | boolean>;
}

/** A seed's config: dbt's seed configs that apply in Tributary. */
export interface SeedConfig {
  /** Column → ClickHouse type (PostgreSQL spellings such as `varchar(20)`, `integer`, `date` work too); others are inferred. (Default: none) */
  column_types: Record<string, string>;
  /** false: column names as PostgreSQL reads unquoted identifiers (lower case). (Default: true, names as written) */
  quote_columns: boolean;
  /** Field separator of the CSV file. (Default: ,) */
  delimiter: string;
  tags: string[];
  /** false leaves the seed out of every command. (Default: true) */
  enabled: boolean;
}

export interface SeedNode {
  kind: 'seed';
  name: string;
  /** `seeds/raw_orders.csv`. */
  path: string;
  /** The CSV text. */
  csv: string;
  config: SeedConfig;
  description?: string;
  /** Columns its properties yml describes, descriptions rendered (`{{ doc('…') }}` resolved). */
  columns?: ColumnDoc[];
  /** The properties yml that describes it (the first, if several do): dbt's patch_path. (Default: none) */
  ymlPath?: string;
}

export interface ModelNode {
  kind: 'model';
  name: string;
  /** Path relative to the project root, e.g. `models/staging/stg_orders.sql`. */
  path: string;
  raw: string;
  config: ModelConfig;
  /** Models this one refs, in order of first use. */
  refs: string[];
  /** Lake table identifiers (`namespace.table`) this one reads. */
  sources: string[];
  description?: string;
  /** Columns schema.yml describes, descriptions rendered (`{{ doc('…') }}` resolved). */
  columns?: ColumnDoc[];
  /** The properties yml that describes it (the first, if several do): dbt's patch_path. (Default: none) */
  ymlPath?: string;
}

export interface ColumnDoc { name: string; description?: string; data_type?: string }

/** A `{% docs name %}…{% enddocs %}` block of a project's .md file. */
export interface DocBlock { name: string; path: string; contents: string }

export type GenericTestType = 'not_null' | 'unique' | 'accepted_values' | 'relationships';

export interface TestNode {
  kind: 'test';
  name: string;
  /** schema.yml path of a generic test, `tests/x.sql` of a singular one. */
  path: string;
  /** Model (or seed) the test is attached to (generic tests; singular tests: their first ref). */
  model?: string;
  /** Every model or seed the test reads. */
  refs: string[];
  sources: string[];
  severity: 'error' | 'warn';
  where?: string;
  tags: string[];
  /** false leaves the test out of every command (folder config `tests: +enabled`). (Default: true) */
  enabled?: boolean;
  /**
   * A built-in generic test: `column` is the column (or, from a model-level
   * test's `column_name:`, an SQL expression) it tests; `modelLevel` when it
   * sits under the model's own `tests:` (dbt's column_name is then null).
   */
  generic?: { type: GenericTestType; column: string; modelLevel?: boolean; values?: unknown[]; quote?: boolean; to?: string; field?: string };
  /** SQL over the failing rows giving the failures value, dbt's `fail_calc`. (Default: count(*)) */
  fail_calc?: string;
  /** dbt's `warn_if`: a comparison the failures value is checked with (test-status.ts). (Default: != 0) */
  warn_if?: string;
  /** dbt's `error_if`, checked before warn_if when the severity is error. (Default: != 0) */
  error_if?: string;
  /** dbt's `limit`: at most this many failing rows count. (Default: none) */
  limit?: number;
  /**
   * dbt's short name of a generic test: its name, or when that is 64
   * characters or longer, a prefix and the name's md5 (test-names.ts). Names
   * the compiled file. (Default: the name)
   */
  alias?: string;
  /** A generic test's arguments as written (column_name included): dbt's test_metadata.kwargs. */
  args?: Record<string, unknown>;
  description?: string;
  /** SQL template of a singular test. */
  raw?: string;
}

export type Node = ModelNode | TestNode | SeedNode;

export interface Project {
  root: string;
  name: string;
  models: Map<string, ModelNode>;
  tests: Map<string, TestNode>;
  /** CSV files under `seeds/`; `ref()` reaches them as it reaches models. */
  seeds: Map<string, SeedNode>;
  /** Project macros, prepended to every template. */
  macros: string;
  /** `vars:` of dbt_project.yml. */
  vars: Record<string, unknown>;
  /** Docs blocks of the project's .md files, by name order. (Default: none) */
  docs?: DocBlock[];
  /** What was read but not applied (unknown config keys, folder paths matching nothing): shown by compile, build and the panel. */
  warnings: { path: string; message: string }[];
}

export type NodeStatus = 'success' | 'error' | 'skipped' | 'pass' | 'fail' | 'warn';

export interface NodeResult {
  name: string;
  kind: 'model' | 'test' | 'seed';
  status: NodeStatus;
  materialized?: Materialization | 'seed';
  /** Rows written (table/incremental, seeds), or a test's failures value (its `fail_calc`, by default the failing rows). Null for views. */
  rows: number | null;
  durationMs: number;
  sql?: string;
  error?: string;
  /** First 100 failing rows of a test. */
  failingRows?: Record<string, unknown>[];
  /** Why a node was skipped: the failed node upstream. */
  skippedBecause?: string;
  /** When the node started (ISO 8601); skipped nodes never start. */
  startedAt?: string;
  /** Which of the run's threads ran it, from 1 (dbt's `Thread-N`). */
  thread?: number;
}

export type Command = 'run' | 'test' | 'build' | 'seed';

export interface RunSummary {
  command: Command;
  ok: boolean;
  results: NodeResult[];
  durationMs: number;
}
