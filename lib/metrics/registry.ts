import type pg from 'pg';
import { Registry, collectDefaultMetrics } from 'prom-client';
import type { Lake } from '../lake';
import { families, histograms } from './families';
import { lakeFigures } from './lake-metrics';
import { CDC_STATES, type CdcBranchFigures } from '../cdc/figures';

/**
 * The Prometheus registry of a web process: Node's own process metrics
 * (prom-client's defaults: CPU, memory, event-loop lag, GC) observed here, and
 * the installation's figures read from the database and the lake on each
 * scrape (families.ts, lake-metrics.ts). Built once per process.
 */
export interface MetricsDeps {
  pool: Pick<pg.Pool, 'query'>;
  /** The lake, for per-table figures; absent: no lake families. */
  lake?: Lake;
  /** The flow scheduler's advisory lock key (lib/flows/scheduler.ts). */
  schedulerLockKey: number;
  /** Per streamed branch (lib/cdc/figures.ts), read once per scrape; absent: no CDC families. */
  cdc?: () => Promise<CdcBranchFigures[]>;
}

const LAKE = [
  ['tributary_lake_snapshots', 'Snapshots kept in the table metadata.', 'snapshots'],
  ['tributary_lake_data_files', 'Live data files of the current snapshot.', 'dataFiles'],
  ['tributary_lake_delete_files', 'Live delete files of the current snapshot (compaction folds them away).', 'deleteFiles'],
  ['tributary_lake_rows', 'Rows of the current snapshot (data rows minus position deletes).', 'rows'],
  ['tributary_lake_bytes', 'Bytes of the current snapshot\'s live files.', 'bytes'],
  ['tributary_lake_last_commit_age_seconds', 'Seconds since the table\'s last commit.', 'lastCommitAgeSeconds'],
] as const;

export function createMetricsRegistry(deps: MetricsDeps): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  for (const f of families(deps.schedulerLockKey)) {
    registry.registerMetric({
      name: f.name, help: f.help,
      async get() {
        const r = await deps.pool.query(f.sql);
        return { name: f.name, help: f.help, type: f.type, values: r.rows.map(f.map), aggregator: 'sum' };
      },
    } as never);
  }
  for (const h of histograms(deps.pool)) registry.registerMetric(h as never);
  if (deps.lake) {
    // One read of the lake per scrape, shared by its six families: prom-client asks every family at
    // once, so they share the read in flight; the next scrape reads afresh.
    let inFlight: ReturnType<typeof lakeFigures> | null = null;
    const figures = () => {
      if (!inFlight) {
        const p = lakeFigures(deps.lake!);
        inFlight = p;
        const clear = () => { if (inFlight === p) inFlight = null; };
        p.then(clear, clear);
      }
      return inFlight;
    };
    for (const [name, help, key] of LAKE) {
      registry.registerMetric({
        name, help,
        async get() {
          const rows = await figures();
          return { name, help, type: 'gauge', values: rows.map((t) => ({ labels: { table: t.table }, value: t[key] })), aggregator: 'sum' };
        },
      } as never);
    }
  }
  if (deps.cdc) registerCdc(registry, deps.cdc);
  return registry;
}

const CDC = [
  ['tributary_cdc_lag_bytes', 'Bytes of WAL the branch\'s slot has not had acknowledged (pg_current_wal_lsn() - confirmed_flush_lsn on the source); absent while the source cannot be read.', 'lagBytes'],
  ['tributary_cdc_retained_wal_bytes', 'Bytes of WAL the branch\'s slot makes the source keep (pg_current_wal_lsn() - restart_lsn); absent while the source cannot be read.', 'retainedWalBytes'],
  ['tributary_cdc_last_commit_age_seconds', 'Seconds since the branch\'s stream last committed a flush to the lake; absent before the first.', 'lastCommitAgeSeconds'],
  ['tributary_cdc_rows_applied_total', 'Changes the branch\'s stream applied to the lake since its setup.', 'rowsApplied'],
  ['tributary_cdc_lag_seconds', 'How old the oldest change not yet in the lake can be: 0 when the slot has everything acknowledged, else seconds since the later of the last applied source commit and the last moment the stream had nothing left to apply; absent while the source cannot be read.', 'lagSeconds'],
] as const;

/** The CDC families: one read of the state and the sources per scrape, shared as the lake's is. */
function registerCdc(registry: Registry, read: () => Promise<CdcBranchFigures[]>): void {
  let inFlight: Promise<CdcBranchFigures[]> | null = null;
  const figures = () => {
    if (!inFlight) {
      const p = read();
      inFlight = p;
      const clear = () => { if (inFlight === p) inFlight = null; };
      p.then(clear, clear);
    }
    return inFlight;
  };
  for (const [name, help, key] of CDC) {
    registry.registerMetric({
      name, help,
      async get() {
        const rows = (await figures()).filter((b) => b[key] !== null);
        return { name, help, type: key === 'rowsApplied' ? 'counter' : 'gauge', values: rows.map((b) => ({ labels: { branch: b.branch }, value: b[key] as number })), aggregator: 'sum' };
      },
    } as never);
  }
  const alert = 'tributary_cdc_lag_alert';
  const alertHelp = 'The lag alert of the branch (TRIBUTARY_CDC_LAG_ALERT_BYTES, etl_meta.cdc_lag_alerts): 1 while its slot retains more WAL than the threshold, 0 otherwise.';
  registry.registerMetric({
    name: alert, help: alertHelp,
    async get() {
      return { name: alert, help: alertHelp, type: 'gauge', values: (await figures()).map((b) => ({ labels: { branch: b.branch }, value: b.lagAlerting ? 1 : 0 })), aggregator: 'sum' };
    },
  } as never);
  const name = 'tributary_cdc_state';
  const help = 'The branch\'s stream state (etl_meta.cdc_state): 1 for its current state, 0 for the others.';
  registry.registerMetric({
    name, help,
    async get() {
      const values = (await figures()).flatMap((b) => CDC_STATES.map((state) => ({ labels: { branch: b.branch, state }, value: b.status === state ? 1 : 0 })));
      return { name, help, type: 'gauge', values, aggregator: 'sum' };
    },
  } as never);
}
