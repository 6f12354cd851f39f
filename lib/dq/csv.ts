import fs from 'node:fs/promises';
import path from 'node:path';
import { csvLine } from '../lake';
import type { DqResult } from './result';

const HEADER = [
  'pipeline_run_id', 'table_name', 'branch_id', 'window_start', 'window_end', 'window_note', 'lake_snapshot_id', 'oracle_row_count',
  'iceberg_row_count', 'row_count_delta', 'hash_matched', 'hash_only_in_oracle', 'hash_only_in_iceberg', 'hash_mismatch', 'hash_total_delta',
  'hash_columns', 'columns_only_in_oracle', 'columns_only_in_iceberg', 'example_keys', 'repair', 'status', 'error_details', 'checked_at',
];

/** The file's own forms before CSV quoting: a time as ISO 8601, a list (hash columns, example keys) joined by `;`. */
const dqValue = (v: unknown) => (v instanceof Date ? v.toISOString() : Array.isArray(v) ? v.join(';') : v);

/** The results as CSV text (RFC 4180), one row per unit, the table's column names as header. */
export function resultsToCsv(rows: DqResult[]): string {
  const lines = [csvLine(HEADER)];
  for (const r of rows) {
    lines.push(csvLine([
      r.pipelineRunId, r.table, r.branch, r.windowStart, r.windowEnd, r.windowNote, r.lakeSnapshotId, r.oracleRowCount, r.icebergRowCount,
      r.rowCountDelta, r.hashMatched, r.hashOnlyInOracle, r.hashOnlyInIceberg, r.hashMismatch, r.hashTotalDelta, r.hashColumns,
      r.columnsOnlyInOracle, r.columnsOnlyInIceberg, r.exampleKeys, r.repair, r.status, r.errorDetails, r.checkedAt,
    ].map(dqValue)));
  }
  return lines.join('\n') + '\n';
}

/** Write `<dir>/<runId>.csv` (the folder is created); returns the path. */
export async function writeResultsCsv(dir: string, runId: string, rows: DqResult[]): Promise<string> {
  await fs.mkdir(dir, { recursive: true });
  const file = path.join(dir, `${runId}.csv`);
  await fs.writeFile(file, resultsToCsv(rows));
  return file;
}
