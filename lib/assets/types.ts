import type { AssetFreshness } from '../freshness';
/** Shapes of the asset graph (pure data, browser-safe: the /assets page imports them). */

/** What a node stands for: a source table on one branch, a lake table, or a node of the models project. */
export type AssetKind = 'source' | 'lake' | 'model' | 'seed' | 'test';

/** The last load (source × branch, lake table) or build (model, seed, test). */
export interface AssetLast {
  /** When it finished (ISO 8601), or null when it never finished. */
  at: string | null;
  rows: number | null;
  /** etl_control's SUCCESS / FAILED / REFUSED, or a model result's success / error / pass / fail / warn / skipped. */
  status: string | null;
  /** Seconds since the last success (loads) or since `at` (builds), at the time the graph was built. */
  ageSeconds: number | null;
  error: string | null;
}

/** The latest reconciliation of a lake table on one branch (etl_meta.etl_dq_results). */
export interface AssetDq {
  branch: string;
  status: string;
  checkedAt: string;
  /** Row-count delta, source − lake. */
  delta: number | null;
  /** Keys only in the source + only in the lake + differing hashes. */
  mismatches: number | null;
  error: string | null;
}

export interface AssetColumn { name: string; type: string | null }

export interface AssetNode {
  /** `source:<branch>:<namespace.table>`, `lake:<namespace.table>`, `model:<name>`, `seed:<name>`, `test:<name>`. */
  id: string;
  kind: AssetKind;
  name: string;
  /** What the page collapses by: `branch <key>` for sources, the lake namespace, the model's folder. */
  group: string;
  /** The branch key of a source node. */
  branch?: string;
  /** The lake identifier (`namespace.table`) of a source or lake node. */
  ident?: string;
  /** The source table (tables.json `table`) of a source node or a lake table loaded from sources. */
  sourceTable?: string;
  /** Project-relative path of a model, seed or test. */
  path?: string;
  last: AssetLast | null;
  /** Latest DQ result per branch (lake nodes; a source node: its branch's). */
  dq: AssetDq[];
  /** Columns: the lake table's current schema, or the columns a model's schema.yml declares. Null when unknown. */
  schema: AssetColumn[] | null;
  /** Freshness against its expectation (tables.json / schema.yml, lib/freshness); null when none is declared. */
  freshness: AssetFreshness | null;
  /** Flows with a step whose job names this node. */
  flows: { id: string; name: string }[];
}

export interface AssetEdge { from: string; to: string }

export interface AssetGraph {
  nodes: AssetNode[];
  edges: AssetEdge[];
  /** Why a part could not be read (tables.json invalid, a lake table unreadable, project parse errors). */
  problems: string[];
  generatedAt: string;
}

/** The scope of a run from a node: the node alone, or with everything upstream or downstream of it. */
export type AssetRunScope = 'node' | 'upstream' | 'downstream';
/** What a run does: load/build (run), or reconcile the lake tables against their sources (dq). */
export type AssetRunAction = 'run' | 'dq';

/** One job to enqueue: a registered job kind and its payload. */
export interface AssetJobSpec { kind: string; params: Record<string, unknown> }
