import type pg from 'pg';
import { createPgClient, type PgConnectConfig } from '../sources';
import { slotInfo } from './setup';
import type { CdcStatus } from './state';

/**
 * Per streamed branch, the figures a scrape of `/metrics` shows: the stream's state and last
 * applied commit from etl_meta.cdc_state (Tributary's own database, always there), and the slot's
 * lag and retained WAL from the source — read with a short connect and statement timeout, so a
 * source that is down or slow leaves those two figures out instead of holding the scrape.
 */
export interface CdcBranchFigures {
  branch: string;
  status: CdcStatus;
  rowsApplied: number;
  /** Seconds since the last flush committed; null before the first. */
  lastCommitAgeSeconds: number | null;
  /** `pg_current_wal_lsn() - confirmed_flush_lsn`; null when the source or the slot could not be read. */
  lagBytes: number | null;
  /** WAL the slot makes the source keep (`pg_current_wal_lsn() - restart_lsn`); null as lagBytes. */
  retainedWalBytes: number | null;
}

export const CDC_STATES: readonly CdcStatus[] = ['ready', 'streaming', 'stopped', 'failed'];

/** How long a scrape waits for a source before leaving its slot figures out. */
const SOURCE_TIMEOUT_MS = 2000;

export async function cdcFigures(pool: Pick<pg.Pool, 'query'>, sourceOf: (branch: string) => Promise<PgConnectConfig | null>, now = Date.now()): Promise<CdcBranchFigures[]> {
  const r = await pool.query(`SELECT branch_id, slot_name, status, applied_at, rows_applied FROM etl_meta.cdc_state ORDER BY branch_id`);
  return Promise.all(r.rows.map(async (x) => {
    const slot = await readSlot(x.branch_id, x.slot_name, sourceOf);
    return {
      branch: x.branch_id as string, status: x.status as CdcStatus, rowsApplied: Number(x.rows_applied),
      lastCommitAgeSeconds: x.applied_at ? Math.max(0, (now - (x.applied_at as Date).getTime()) / 1000) : null,
      lagBytes: slot?.lagBytes ?? null, retainedWalBytes: slot?.retainedBytes ?? null,
    };
  }));
}

async function readSlot(branch: string, slot: string, sourceOf: (branch: string) => Promise<PgConnectConfig | null>) {
  let cfg: PgConnectConfig | null;
  try { cfg = await sourceOf(branch); } catch { return null; } // the branch's connection is gone or unreadable: no slot figures
  if (!cfg) return null;
  const c = createPgClient({ ...cfg, connectionTimeoutMillis: SOURCE_TIMEOUT_MS, statement_timeout: SOURCE_TIMEOUT_MS, application_name: 'tributary-metrics' });
  c.on('error', () => {});
  try {
    await c.connect();
    return await slotInfo(c, slot);
  } catch {
    return null; // unreachable source: the scrape goes on without this branch's slot figures
  } finally { await c.end().catch(() => {}); }
}
