/** Shapes shared by the models engine (pure data, no I/O). */

export type Materialization = 'view' | 'table' | 'incremental';

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
  tags: string[];
  /** false leaves the model out of every command. (Default: true) */
  enabled: boolean;
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
}

export type GenericTestType = 'not_null' | 'unique' | 'accepted_values' | 'relationships';

export interface TestNode {
  kind: 'test';
  name: string;
  /** schema.yml path of a generic test, `tests/x.sql` of a singular one. */
  path: string;
  /** Model the test is attached to (generic tests; singular tests: their first ref). */
  model?: string;
  /** Every model the test reads. */
  refs: string[];
  sources: string[];
  severity: 'error' | 'warn';
  where?: string;
  tags: string[];
  generic?: { type: GenericTestType; column: string; values?: unknown[]; quote?: boolean; to?: string; field?: string };
  /** SQL template of a singular test. */
  raw?: string;
}

export type Node = ModelNode | TestNode;

export interface Project {
  root: string;
  name: string;
  models: Map<string, ModelNode>;
  tests: Map<string, TestNode>;
  /** Project macros, prepended to every template. */
  macros: string;
  /** `vars:` of dbt_project.yml. */
  vars: Record<string, unknown>;
}

export type NodeStatus = 'success' | 'error' | 'skipped' | 'pass' | 'fail' | 'warn';

export interface NodeResult {
  name: string;
  kind: 'model' | 'test';
  status: NodeStatus;
  materialized?: Materialization;
  /** Rows written (table/incremental), or failing rows (tests). Null for views. */
  rows: number | null;
  durationMs: number;
  sql?: string;
  error?: string;
  /** First 100 failing rows of a test. */
  failingRows?: Record<string, unknown>[];
  /** Why a node was skipped: the failed node upstream. */
  skippedBecause?: string;
}

export type Command = 'run' | 'test' | 'build';

export interface RunSummary {
  command: Command;
  ok: boolean;
  results: NodeResult[];
  durationMs: number;
}
