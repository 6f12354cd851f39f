/**
 * Row counts of one snapshot from its summary, as the Iceberg spec's summary
 * fields define them. `total-records` counts the rows of live DATA files, so a
 * merge that marks 5 rows deleted through position deletes leaves it 5 higher
 * than the rows a reader sees; live rows subtract `total-position-deletes`
 * (exact) and `total-equality-deletes` (each such delete removes at most the
 * rows it matches, so with equality deletes `live` is a lower bound and
 * `exact` is false). Pure, so the list, the detail page and the chart agree.
 */
export interface SnapshotRows {
  /** Rows the snapshot added (`added-records`). */
  added: number;
  /** Rows it deleted: removed data files' rows plus rows marked by new delete files. */
  deleted: number;
  /** Rows of live data files (`total-records`), null when the writer recorded none. */
  total: number | null;
  /** Rows a reader sees: total minus rows marked deleted; null when unknown. */
  live: number | null;
  /** Rows marked deleted by live delete files (position + equality). */
  markedDeleted: number;
  /** False when equality deletes make `live` a lower bound. */
  exact: boolean;
}

const num = (v: string | undefined) => (v === undefined || v === '' || Number.isNaN(Number(v)) ? 0 : Number(v));

export function snapshotRows(summary: Record<string, string> | undefined | null): SnapshotRows {
  const s = summary ?? {};
  const total = s['total-records'] === undefined ? null : num(s['total-records']);
  const markedDeleted = num(s['total-position-deletes']) + num(s['total-equality-deletes']);
  return {
    added: num(s['added-records']),
    deleted: num(s['deleted-records']) + num(s['added-position-deletes']) + num(s['added-equality-deletes']),
    total,
    live: total === null ? null : Math.max(0, total - markedDeleted),
    markedDeleted,
    exact: num(s['total-equality-deletes']) === 0,
  };
}
