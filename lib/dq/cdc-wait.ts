import type pg from 'pg';
import type { DqSource } from './source';

/**
 * Reconciling a streamed branch (`cdc: log`): the lake is seconds behind the source by design, so
 * before its tables are compared dq reads the source's `pg_current_wal_lsn()` and waits until the
 * stream has applied the log up to that point (`etl_meta.cdc_state.applied_lsn`, written by
 * lib/cdc after each flush). A write committed before dq started is then in the lake.
 *
 * The point is the WAL position, not the source's last commit: the source reports no "last
 * commit LSN" without `track_commit_timestamp`, and WAL written by other tables, other databases
 * or checkpoints moves the position with no commit for the stream to apply. The stream covers
 * that itself: when it holds nothing, each keepalive of the server (sent as soon as the server
 * has decoded WAL the stream has not acknowledged) is recorded as its applied position, so an
 * idle source is reached a moment after dq reads it. (lib/dq does not import lib/cdc, a peer:
 * the control state is read and LSNs compared here, in SQL, as `pg_lsn`.)
 *
 * Rows written after the point may still differ (the source is read live, after the wait); the
 * result's note gives the two positions.
 */

/** How far a streamed branch's lake is, for each of its results. */
export interface CdcPoint {
  /** The stream reached the source's position: the comparison is meaningful. */
  reached: boolean;
  /** Said on every result of the branch (window_note when reached, error_details when not). */
  note: string;
}

interface StateRow { status: string; applied_lsn: string | null; error: string | null; slot_name: string; reached: boolean }

async function readState(pool: pg.Pool, branch: string, target: string): Promise<StateRow | null> {
  const r = await pool.query(`SELECT status, applied_lsn, error, slot_name, COALESCE(applied_lsn::pg_lsn >= $2::pg_lsn, false) AS reached
    FROM etl_meta.cdc_state WHERE branch_id = $1`, [branch, target]);
  return r.rows[0] ?? null;
}

const pause = (ms: number, signal?: AbortSignal) => new Promise<void>((resolve) => {
  const t = setTimeout(resolve, ms);
  signal?.addEventListener('abort', () => { clearTimeout(t); resolve(); }, { once: true });
});

/**
 * Wait (at most `timeoutMs`) for the stream of `branch` to apply the source's current WAL
 * position. Null when the branch has no stream state (never set up: its lake is loaded by
 * INITIAL/INCREMENTAL as any branch). A stream that is not running (stopped, failed, never
 * started) is not waited for: the note says so, with both positions.
 */
export async function waitForStream(pool: pg.Pool, src: DqSource, branch: string, o: { timeoutMs: number; pollMs?: number; signal?: AbortSignal }): Promise<CdcPoint | null> {
  const first = await pool.query(`SELECT slot_name FROM etl_meta.cdc_state WHERE branch_id = $1`, [branch]);
  if (!first.rowCount || !src.walPosition) return null;
  const slot: string = first.rows[0].slot_name;
  const target = (await src.walPosition(slot)).lsn;
  const deadline = Date.now() + o.timeoutMs;
  let st = await readState(pool, branch, target);
  while (st && !st.reached && st.status === 'streaming' && Date.now() < deadline) {
    o.signal?.throwIfAborted();
    await pause(Math.min(o.pollMs ?? 200, Math.max(0, deadline - Date.now())), o.signal);
    st = await readState(pool, branch, target);
  }
  if (!st) return null; // dropped meanwhile
  const lake = st.applied_lsn ?? 'none';
  if (st.reached) return { reached: true, note: `cdc: compared after the stream applied the source's WAL position ${target} (lake at ${lake})` };
  const behind = `cdc: the lake of branch ${branch} has not reached the source's WAL position ${target} (lake at ${lake})`;
  if (st.status !== 'streaming') {
    const why = st.status === 'failed' ? `the stream failed: ${st.error ?? 'no error recorded'}` : st.status === 'stopped' ? 'the stream is stopped' : 'the stream was never started';
    return { reached: false, note: `${behind}: ${why}; differences may be changes not yet applied — start it (\`tributary cdc start --branch ${branch}\`) and check again` };
  }
  const active = (await src.walPosition(slot).catch(() => null))?.slotActive;
  const reader = active === false ? `; no process reads slot ${slot} (the stream's worker died?)` : '';
  return { reached: false, note: `${behind} within ${o.timeoutMs / 1000} s${reader}; differences may be changes not yet applied — check again, or wait longer (--cdc-wait)` };
}
