/**
 * A Prometheus histogram whose buckets are counted by the database, as a
 * metric object prom-client's Registry formats (its `get()` contract): the
 * figures come from rows every process wrote (runs, units), so no process
 * observes them itself and a scrape of any web process sees them all.
 */
export interface BucketRow {
  /** Label values of one series. */
  labels: Record<string, string>;
  /** Count of observations ≤ each bound of `bounds`, in order (cumulative). */
  cumulative: number[];
  count: number;
  sum: number;
}

export function dbHistogram(name: string, help: string, bounds: readonly number[], rows: () => Promise<BucketRow[]>) {
  return {
    name, help,
    async get() {
      const values: { metricName: string; labels: Record<string, string | number>; value: number }[] = [];
      for (const r of await rows()) {
        bounds.forEach((le, i) => values.push({ metricName: `${name}_bucket`, labels: { ...r.labels, le }, value: r.cumulative[i] }));
        values.push({ metricName: `${name}_bucket`, labels: { ...r.labels, le: '+Inf' }, value: r.count });
        values.push({ metricName: `${name}_sum`, labels: r.labels, value: r.sum });
        values.push({ metricName: `${name}_count`, labels: r.labels, value: r.count });
      }
      return { name, help, type: 'histogram', values, aggregator: 'sum' };
    },
  };
}

/**
 * SQL select-list items counting rows whose `expr` (seconds) is ≤ each bound:
 * `count(*) filter (where expr <= 1) as b0, …`, read back by `cumulativeOf`.
 */
export function bucketColumns(expr: string, bounds: readonly number[]): string {
  return bounds.map((b, i) => `count(*) filter (where ${expr} <= ${Number(b)})::float8 as b${i}`).join(', ');
}

export function cumulativeOf(row: Record<string, unknown>, bounds: readonly number[]): number[] {
  return bounds.map((_, i) => Number(row[`b${i}`]));
}
