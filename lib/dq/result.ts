/** Status of one (run, table, branch) unit. */
export type DqStatus = 'OK' | 'MISMATCH' | 'ERROR' | 'SKIPPED';

/**
 * One reconciliation result, as written to `etl_meta.etl_dq_results`. The
 * seed's names are kept: `oracle*` means the source branch (Oracle or
 * PostgreSQL), `iceberg*` the lake.
 */
export interface DqResult {
  pipelineRunId: string;
  table: string;
  branch: string;
  windowStart: string | null;
  windowEnd: string | null;
  windowNote: string | null;
  lakeSnapshotId: string | null;
  oracleRowCount: number | null;
  icebergRowCount: number | null;
  rowCountDelta: number | null;
  hashMatched: number | null;
  hashOnlyInOracle: number | null;
  hashOnlyInIceberg: number | null;
  hashMismatch: number | null;
  hashTotalDelta: number | null;
  hashColumns: string[] | null;
  columnsOnlyInOracle: string[];
  columnsOnlyInIceberg: string[];
  exampleKeys: unknown;
  repair: unknown;
  status: DqStatus;
  errorDetails: string | null;
  checkedAt: Date;
}

/** What `window_note` says of a keyless (query) entry: there is no key to join rows on. */
export const KEYLESS_NOTE = 'no unique_key: row counts only';

/** A unit compared by its row counts alone (a keyless entry, or `--no-hash`). */
export function countsOnly(sourceRows: number, lakeRows: number): Pick<DqResult, 'oracleRowCount' | 'icebergRowCount' | 'rowCountDelta' | 'status'> {
  return { oracleRowCount: sourceRows, icebergRowCount: lakeRows, rowCountDelta: sourceRows - lakeRows, status: sourceRows === lakeRows ? 'OK' : 'MISMATCH' };
}

/** A new `dq-…` run id: time-ordered and unique. */
export function newDqRunId(now = new Date()): string {
  const ts = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return `dq-${ts}-${Math.random().toString(36).slice(2, 8)}`;
}

/**
 * One unit as a job's result (and `tributary dq --json`) sums it up: `delta` is the row-count
 * difference (source − lake), as the CLI's table and the panel show it; `differing` the rows the
 * hash pass found only on one side or different (`hash_total_delta`), as found before any repair;
 * `repair` what `--repair` did of them (REPAIRED, PARTIAL, FAILED or NOT_RUN; absent when none ran):
 * a unit `OK` with rows differing is one whose differences were repaired and re-checked.
 */
export function unitSummary(r: DqResult) {
  const repair = repairStatus(r.repair);
  return {
    table: r.table, branch: r.branch, status: r.status, source: r.oracleRowCount, lake: r.icebergRowCount, delta: r.rowCountDelta, differing: r.hashTotalDelta,
    ...(repair ? { repair } : {}), error: r.errorDetails,
  };
}

/** The status of a result's `repair` record (null: no repair was asked for or needed). */
export function repairStatus(repair: unknown): string | null {
  const s = (repair as { status?: unknown } | null)?.status;
  return typeof s === 'string' ? s : null;
}
