import type pg from 'pg';
import type { Env } from '../config/env';
import { getBranches } from '../connections';
import { branchSources, cdcFigures, type CdcBranchFigures } from './figures';

/** A streamed branch as the panel's CDC view shows it: its figures and the `cdc.stream` run that streams it (or waits to). */
export interface CdcBranchView extends CdcBranchFigures {
  /** The queued or running `cdc.stream` job run of the branch; null when none (a foreground `cdc start` has none either). */
  run: { id: string; status: 'queued' | 'running' } | null;
}

export interface CdcLiveView {
  branches: CdcBranchView[];
  /** Branch connections set to `cdc = "log"` that `cdc setup` has not set up yet. */
  notSetUp: string[];
  /** TRIBUTARY_CDC_LAG_ALERT_BYTES as this process read it; 0: no alert. */
  lagAlertBytes: number;
}

/**
 * `GET /api/v1/cdc`: every streamed branch's live figures (figures.ts: the control state, one row
 * per branch, and each source's slot read with a 2 s timeout), with its stream's job run.
 */
export async function cdcLiveView(deps: { pool: pg.Pool; env: Env }): Promise<CdcLiveView> {
  const branches = await cdcFigures(deps.pool, branchSources(deps));
  const runs = await deps.pool.query(`SELECT DISTINCT ON (params->>'branch') params->>'branch' AS branch, id, status FROM job_runs
    WHERE kind = 'cdc.stream' AND status IN ('queued', 'running') ORDER BY params->>'branch', created_at DESC`);
  const runOf = new Map(runs.rows.map((r) => [r.branch as string, { id: r.id as string, status: r.status as 'queued' | 'running' }]));
  const all = await getBranches({ pool: deps.pool, keys: { secret: deps.env.TRIBUTARY_SECRET, dataDir: deps.env.dataDir } });
  const known = new Set(branches.map((b) => b.branch));
  return {
    branches: branches.map((b) => ({ ...b, run: runOf.get(b.branch) ?? null })),
    notSetUp: all.filter((b) => b.kind === 'postgres' && b.params.cdc === 'log' && !known.has(b.key)).map((b) => b.key).sort(),
    lagAlertBytes: deps.env.TRIBUTARY_CDC_LAG_ALERT_BYTES,
  };
}
