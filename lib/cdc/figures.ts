import type pg from 'pg';
import type { Env } from '../config/env';
import { branchDescriptorOf, getBranches } from '../connections';
import { createPgClient, pgConfigOf, type PgConnectConfig, type PostgresDescriptor } from '../sources';
import { lagSeconds, rowsPerSecond } from './live-figures';
import { slotInfo } from './setup';
import type { CdcStatus } from './state';

/**
 * Per streamed branch, the figures a scrape of `/metrics`, the panel's live view and the lag alert
 * show: the stream's state, last applied commit and rate from etl_meta.cdc_state (Tributary's own
 * database, always there; one row per branch), and the slot's lag and retained WAL from the source
 * — read with a short connect and statement timeout, so a source that is down or slow leaves those
 * figures out instead of holding the caller.
 */
export interface CdcBranchFigures {
  branch: string;
  status: CdcStatus;
  /** The stream's last error (status `failed`). */
  error: string | null;
  /** Who streams it (host:pid) while streaming. */
  owner: string | null;
  rowsApplied: number;
  /** Changes applied per second over the last one to two minutes (live-figures.ts); 0 when not streaming. */
  rowsPerSecond: number;
  /** The lake's position in the source's WAL. */
  appliedLsn: string | null;
  /** When the last flush committed to the lake (the setup's time before the first). */
  lastCommitAt: string | null;
  /** Seconds since the last flush committed; null before the first. */
  lastCommitAgeSeconds: number | null;
  /** Source commit time of the last transaction the lake applied; null before the first. */
  sourceCommitAt: string | null;
  /** `pg_current_wal_lsn() - confirmed_flush_lsn`; null when the source or the slot could not be read. */
  lagBytes: number | null;
  /** How old the oldest change not yet in the lake can be (live-figures.ts); null as lagBytes. */
  lagSeconds: number | null;
  /** WAL the slot makes the source keep (`pg_current_wal_lsn() - restart_lsn`); null as lagBytes. */
  retainedWalBytes: number | null;
  /** Whether the slot exists on the source; null when the source could not be read. */
  slotExists: boolean | null;
  /** Whether the lag alert (TRIBUTARY_CDC_LAG_ALERT_BYTES) holds for the branch (etl_meta.cdc_lag_alerts). */
  lagAlerting: boolean;
}

export const CDC_STATES: readonly CdcStatus[] = ['ready', 'streaming', 'stopped', 'failed'];

/** How long a reader waits for a source before leaving its slot figures out. */
const SOURCE_TIMEOUT_MS = 2000;

export type SourceOf = (branch: string) => Promise<PgConnectConfig | null>;

export async function cdcFigures(pool: Pick<pg.Pool, 'query'>, sourceOf: SourceOf, now = Date.now()): Promise<CdcBranchFigures[]> {
  const r = await pool.query(`SELECT s.*, coalesce(a.alerting, false) AS lag_alerting
    FROM etl_meta.cdc_state s LEFT JOIN etl_meta.cdc_lag_alerts a ON a.branch_id = s.branch_id ORDER BY s.branch_id`);
  return Promise.all(r.rows.map(async (x) => {
    const slot = await readSlot(x.branch_id, x.slot_name, sourceOf);
    const lagBytes = slot === undefined ? null : slot?.lagBytes ?? null;
    const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
    return {
      branch: x.branch_id as string, status: x.status as CdcStatus, error: x.error, owner: x.owner, rowsApplied: Number(x.rows_applied),
      rowsPerSecond: rowsPerSecond({ streaming: x.status === 'streaming', rowsApplied: Number(x.rows_applied), rateRows: num(x.rate_rows), rateAt: x.rate_at, ratePrevRows: num(x.rate_prev_rows), ratePrevAt: x.rate_prev_at }, now),
      appliedLsn: x.applied_lsn, lastCommitAt: x.applied_at ? (x.applied_at as Date).toISOString() : null,
      lastCommitAgeSeconds: x.applied_at ? Math.max(0, (now - (x.applied_at as Date).getTime()) / 1000) : null,
      sourceCommitAt: x.source_commit_at ? (x.source_commit_at as Date).toISOString() : null,
      lagBytes, lagSeconds: lagSeconds({ lagBytes, sourceCommitAt: x.source_commit_at, caughtUpAt: x.caught_up_at }, now),
      retainedWalBytes: slot?.retainedBytes ?? null, slotExists: slot === undefined ? null : slot !== null, lagAlerting: x.lag_alerting,
    };
  }));
}

/** The slot as the source sees it: null when it does not exist, undefined when the source could not be read. */
async function readSlot(branch: string, slot: string, sourceOf: SourceOf) {
  let cfg: PgConnectConfig | null;
  try { cfg = await sourceOf(branch); } catch { return undefined; } // the branch's connection is gone or unreadable: no slot figures
  if (!cfg) return undefined;
  const c = createPgClient({ ...cfg, connectionTimeoutMillis: SOURCE_TIMEOUT_MS, statement_timeout: SOURCE_TIMEOUT_MS, application_name: 'tributary-metrics' });
  c.on('error', () => {});
  try {
    await c.connect();
    return await slotInfo(c, slot);
  } catch {
    return undefined; // unreachable source: the reader goes on without this branch's slot figures
  } finally { await c.end().catch(() => {}); }
}

/** The branch connections' PostgreSQL settings, decrypted once per call of `cdcFigures` and only when some branch streams. */
export function branchSources(deps: { pool: pg.Pool; env: Pick<Env, 'TRIBUTARY_SECRET' | 'dataDir'> }): SourceOf {
  let branches: ReturnType<typeof getBranches> | null = null;
  return async (key) => {
    branches ??= getBranches({ pool: deps.pool, keys: { secret: deps.env.TRIBUTARY_SECRET, dataDir: deps.env.dataDir } });
    const b = (await branches).find((x) => x.key === key);
    return b?.kind === 'postgres' ? pgConfigOf(branchDescriptorOf(b) as PostgresDescriptor) : null;
  };
}
