import type { FreshnessExpectation } from '../config/freshness';

/** `pass`: younger than every threshold; `warn` / `error`: older than warn_after / error_after; `unknown`: never loaded or built. */
export type FreshnessStatus = 'pass' | 'warn' | 'error' | 'unknown';
export const FRESHNESS_STATUSES: readonly FreshnessStatus[] = ['pass', 'warn', 'error', 'unknown'];

export type FreshnessAssetKind = 'lake_table' | 'model';

/** One asset with an expectation. */
export interface AssetExpectation {
  /** Stable key: `lake:<namespace>.<table>` or `model:<name>` (assetKey). Also the metrics' `asset` label. */
  asset: string;
  kind: FreshnessAssetKind;
  /** `namespace.table` for a lake table, the model's name for a model. */
  name: string;
  expectation: FreshnessExpectation;
  /** Where the expectation was declared: `tables.json`, `tables.json default` or the schema.yml file's path. */
  declaredIn: string;
}

/** What the database says: last successful load per lake table × branch, last successful build per model. */
export interface FreshnessObservations {
  lakeLoads: { table: string; branch: string; lastSuccessAt: Date | null }[];
  modelBuilds: { model: string; lastSuccessAt: Date }[];
}

export interface AssetFreshness {
  asset: string;
  kind: FreshnessAssetKind;
  name: string;
  status: FreshnessStatus;
  /** Seconds since the last success (a lake table's worst branch); null when unknown. */
  lagSeconds: number | null;
  /** The last success the lag is measured from (a lake table's oldest branch), ISO; null when unknown. */
  lastSuccessAt: string | null;
  /** The branch whose last load is oldest (lake tables); null for models or when unknown. */
  worstBranch: string | null;
  /** Branches with a control row but no successful load yet: not counted in the lag, shown beside it. */
  branchesNeverLoaded: string[];
  warnAfterSeconds: number | null;
  errorAfterSeconds: number | null;
  declaredIn: string;
}

export const assetKey = (kind: FreshnessAssetKind, name: string) => `${kind === 'lake_table' ? 'lake' : 'model'}:${name}`;

/** The status of one lag against its thresholds: older than (strictly, as dbt compares) error_after errors, then warn_after warns. */
export function statusOf(lagSeconds: number | null, e: FreshnessExpectation): FreshnessStatus {
  if (lagSeconds === null) return 'unknown';
  if (e.errorAfterS !== null && lagSeconds > e.errorAfterS) return 'error';
  if (e.warnAfterS !== null && lagSeconds > e.warnAfterS) return 'warn';
  return 'pass';
}

/**
 * Each expected asset's freshness at `now`. Pure. A lake table is as stale as
 * its stalest branch: the freshest branch says nothing about the others, and
 * a reader of the table sees every branch's rows.
 */
export function computeFreshness(expected: AssetExpectation[], obs: FreshnessObservations, now: Date): AssetFreshness[] {
  const loads = new Map<string, { branch: string; at: Date | null }[]>();
  for (const l of obs.lakeLoads) {
    const k = l.table.toLowerCase();
    if (!loads.has(k)) loads.set(k, []);
    loads.get(k)!.push({ branch: l.branch, at: l.lastSuccessAt });
  }
  const builds = new Map(obs.modelBuilds.map((b) => [b.model, b.lastSuccessAt]));
  return expected.map((x) => {
    let last: Date | null = null; let worstBranch: string | null = null; let never: string[] = [];
    if (x.kind === 'lake_table') {
      const rows = loads.get(x.name.toLowerCase()) ?? [];
      never = rows.filter((r) => !r.at).map((r) => r.branch).sort();
      for (const r of rows) if (r.at && (!last || r.at < last)) { last = r.at; worstBranch = r.branch; }
    } else {
      last = builds.get(x.name) ?? null;
    }
    const lag = last ? Math.max(0, (now.getTime() - last.getTime()) / 1000) : null;
    return {
      asset: x.asset, kind: x.kind, name: x.name, status: statusOf(lag, x.expectation), lagSeconds: lag,
      lastSuccessAt: last ? last.toISOString() : null, worstBranch, branchesNeverLoaded: never,
      warnAfterSeconds: x.expectation.warnAfterS, errorAfterSeconds: x.expectation.errorAfterS, declaredIn: x.declaredIn,
    };
  });
}
