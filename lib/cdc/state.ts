import type pg from 'pg';
import { withTransaction } from '../db';

/**
 * The CDC control state (etl_meta.cdc_state per branch, etl_meta.cdc_tables per lake table ×
 * branch; migration 0033). A table's row is written right after its lake commit and the branch's
 * after all of a flush's commits; the source is acknowledged only after that. etl_control gets
 * the table's last success too, so freshness and the panel see a streamed table as loaded.
 */

export type CdcStatus = 'ready' | 'streaming' | 'stopped' | 'failed';

export interface BranchState {
  branch: string; namespace: string; slot: string; publication: string;
  startLsn: string | null; appliedLsn: string | null; appliedAt: Date | null;
  status: CdcStatus; error: string | null; rowsApplied: number; owner: string | null;
}

export async function readBranchState(pool: pg.Pool, branch: string): Promise<BranchState | null> {
  const r = await pool.query(`SELECT * FROM etl_meta.cdc_state WHERE branch_id = $1`, [branch]);
  const x = r.rows[0];
  if (!x) return null;
  return {
    branch: x.branch_id, namespace: x.namespace, slot: x.slot_name, publication: x.publication, startLsn: x.start_lsn, appliedLsn: x.applied_lsn,
    appliedAt: x.applied_at, status: x.status, error: x.error, rowsApplied: Number(x.rows_applied), owner: x.owner,
  };
}

/** After `cdc setup`: the slot's consistent point is where the lake stands (the snapshot holds all before it). */
export async function recordSetup(pool: pg.Pool, s: { branch: string; namespace: string; slot: string; publication: string; startLsn: string; tables: string[] }): Promise<void> {
  await withTransaction(pool, async (c) => {
    // the snapshot holds everything up to now: the lake is caught up as of this moment
    await c.query(`INSERT INTO etl_meta.cdc_state (branch_id, namespace, slot_name, publication, start_lsn, applied_lsn, applied_at, status, error, rows_applied, owner, updated_at,
        source_commit_at, caught_up_at, rate_rows, rate_at, rate_prev_rows, rate_prev_at)
      VALUES ($1, $2, $3, $4, $5, $5, now(), 'ready', NULL, 0, NULL, now(), NULL, now(), 0, now(), NULL, NULL)
      ON CONFLICT (branch_id) DO UPDATE SET namespace = EXCLUDED.namespace, slot_name = EXCLUDED.slot_name, publication = EXCLUDED.publication,
        start_lsn = EXCLUDED.start_lsn, applied_lsn = EXCLUDED.applied_lsn, applied_at = now(), status = 'ready', error = NULL, rows_applied = 0, owner = NULL, updated_at = now(),
        source_commit_at = NULL, caught_up_at = now(), rate_rows = 0, rate_at = now(), rate_prev_rows = NULL, rate_prev_at = NULL`,
    [s.branch, s.namespace, s.slot, s.publication, s.startLsn]);
    await c.query(`DELETE FROM etl_meta.cdc_tables WHERE branch_id = $1 AND namespace = $2`, [s.branch, s.namespace]);
    await c.query(`INSERT INTO etl_meta.cdc_tables (namespace, table_name, branch_id, applied_lsn) SELECT $1, t, $2, $3 FROM unnest($4::text[]) AS t`,
      [s.namespace, s.branch, s.startLsn, s.tables]);
  });
}

/** Why a branch whose `cdc setup` has not finished cannot stream (cdc_state.error while start_lsn is NULL). */
export const setupUnfinished = (branch: string) =>
  `cdc: the initial snapshot of branch ${branch} has not finished (a \`cdc setup\` is loading it, or died while loading it): the lake may hold part of it, and the slot's exported snapshot died with that setup. Re-run \`tributary cdc setup --branch ${branch}\`, which drops the slot, creates it again and reloads the branch's tables`;

/**
 * Before `cdc setup` touches the slot or the lake: the branch is not streamable (no start LSN,
 * status failed naming the re-run) until recordSetup. A setup killed while loading its snapshot
 * leaves exactly this: a stream refuses it, `cdc status` shows it, and the old tables' LSNs are
 * gone (they belonged to the slot being replaced).
 */
export async function recordSetupStarted(pool: pg.Pool, s: { branch: string; namespace: string; slot: string; publication: string }): Promise<void> {
  await withTransaction(pool, async (c) => {
    await c.query(`INSERT INTO etl_meta.cdc_state (branch_id, namespace, slot_name, publication, start_lsn, applied_lsn, applied_at, status, error, rows_applied, owner, updated_at)
      VALUES ($1, $2, $3, $4, NULL, NULL, NULL, 'failed', $5, 0, NULL, now())
      ON CONFLICT (branch_id) DO UPDATE SET namespace = EXCLUDED.namespace, slot_name = EXCLUDED.slot_name, publication = EXCLUDED.publication,
        start_lsn = NULL, applied_lsn = NULL, applied_at = NULL, status = 'failed', error = EXCLUDED.error, rows_applied = 0, owner = NULL, updated_at = now()`,
    [s.branch, s.namespace, s.slot, s.publication, setupUnfinished(s.branch)]);
    await c.query(`DELETE FROM etl_meta.cdc_tables WHERE branch_id = $1`, [s.branch]);
  });
}

export async function setBranchStatus(pool: pg.Pool, branch: string, status: CdcStatus, o: { error?: string | null; owner?: string | null } = {}): Promise<void> {
  // a stream starting begins its rate window afresh: the time it was stopped is no part of its apply rate
  await pool.query(`UPDATE etl_meta.cdc_state SET status = $2, error = $3, owner = $4, updated_at = now(),
      rate_rows = CASE WHEN $2 = 'streaming' THEN rows_applied ELSE rate_rows END, rate_at = CASE WHEN $2 = 'streaming' THEN now() ELSE rate_at END,
      rate_prev_rows = CASE WHEN $2 = 'streaming' THEN NULL ELSE rate_prev_rows END, rate_prev_at = CASE WHEN $2 = 'streaming' THEN NULL ELSE rate_prev_at END
    WHERE branch_id = $1`,
  [branch, status, o.error ?? null, o.owner ?? null]);
}

/** How often the rate samples move forward: rows per second is an average over the last 60 to 120 s. */
export const RATE_WINDOW_SECONDS = 60;

/**
 * The SET clauses that move the rate samples forward when the newer one is a window old: the
 * older takes the newer's place and the newer becomes (the counter after this write, now). Both
 * read the row as it was before the UPDATE (PostgreSQL evaluates every SET on the old row).
 * `$rows` is the placeholder of the rows this write adds.
 */
function rotateRate(rows: string): string {
  const due = `(rate_at IS NULL OR rate_at <= now() - make_interval(secs => ${RATE_WINDOW_SECONDS}))`;
  return `rate_prev_rows = CASE WHEN ${due} THEN rate_rows ELSE rate_prev_rows END, rate_prev_at = CASE WHEN ${due} THEN rate_at ELSE rate_prev_at END,
    rate_rows = CASE WHEN ${due} THEN rows_applied + ${rows} ELSE rate_rows END, rate_at = CASE WHEN ${due} THEN now() ELSE rate_at END`;
}

/** The LSN each lake table of the branch holds (its last CDC commit, or the snapshot's point). */
export async function readTableLsns(pool: pg.Pool, namespace: string, branch: string): Promise<Map<string, string>> {
  const r = await pool.query(`SELECT table_name, applied_lsn FROM etl_meta.cdc_tables WHERE namespace = $1 AND branch_id = $2`, [namespace, branch]);
  return new Map(r.rows.map((x) => [x.table_name as string, x.applied_lsn as string]));
}

/** Right after a table's lake commit: its LSN, and its etl_control row as a success. */
export async function recordTableApplied(pool: pg.Pool, t: { namespace: string; table: string; branch: string; lsn: string; snapshotId: string | null; rows: number; runId: string; startedAt: Date }): Promise<void> {
  await withTransaction(pool, async (c) => {
    await c.query(`INSERT INTO etl_meta.cdc_tables (namespace, table_name, branch_id, applied_lsn, snapshot_id, rows_applied, updated_at) VALUES ($1, $2, $3, $4, $5, $6, now())
      ON CONFLICT (namespace, table_name, branch_id) DO UPDATE SET applied_lsn = EXCLUDED.applied_lsn, snapshot_id = COALESCE(EXCLUDED.snapshot_id, cdc_tables.snapshot_id),
        rows_applied = cdc_tables.rows_applied + EXCLUDED.rows_applied, updated_at = now()`,
    [t.namespace, t.table, t.branch, t.lsn, t.snapshotId, t.rows]);
    await c.query(`INSERT INTO etl_meta.etl_control (table_name, branch_id, status, row_count, duration_ms, pipeline_run_id, last_run_started_at, last_run_finished_at, last_success_at, namespace, updated_at)
      VALUES ($1, $2, 'SUCCESS', $3, $4, $5, $6, now(), now(), $7, now())
      ON CONFLICT (namespace, table_name, branch_id) DO UPDATE SET status = 'SUCCESS', row_count = EXCLUDED.row_count, duration_ms = EXCLUDED.duration_ms,
        pipeline_run_id = EXCLUDED.pipeline_run_id, last_run_started_at = EXCLUDED.last_run_started_at, last_run_finished_at = now(), last_success_at = now(),
        error_details = NULL, updated_at = now()`,
    [t.table, t.branch, t.rows, Date.now() - t.startedAt.getTime(), t.runId, t.startedAt, t.namespace]);
  });
}

/** After every table of a flush is committed and recorded: the branch's position, then the source is acknowledged. */
export async function recordBranchApplied(pool: pg.Pool, branch: string, lsn: string, rows: number, sourceCommitAt: Date | null = null): Promise<void> {
  await pool.query(`UPDATE etl_meta.cdc_state SET applied_lsn = $2, applied_at = now(), rows_applied = rows_applied + $3, updated_at = now(),
      source_commit_at = COALESCE($4, source_commit_at), ${rotateRate('$3')}
    WHERE branch_id = $1`, [branch, lsn, rows, sourceCommitAt]);
}

/**
 * An idle stream's position: the server's keepalive said it has decoded the WAL up to `lsn`, and
 * nothing was held or open, so the lake holds every commit of the publication before it. Only
 * moves forward (a keepalive's write may race a flush's), and leaves `applied_at` (the last
 * commit's time) alone. This is what lets `dq` wait for a point on a source that writes nothing
 * more to the published tables.
 */
export async function recordBranchPosition(pool: pg.Pool, branch: string, lsn: string): Promise<void> {
  // nothing was held: the lake had everything the source had written when this keepalive came (`caught_up_at`, lag in seconds)
  await pool.query(`UPDATE etl_meta.cdc_state SET applied_lsn = $2, updated_at = now(), caught_up_at = now(), ${rotateRate('0')}
    WHERE branch_id = $1 AND (applied_lsn IS NULL OR applied_lsn::pg_lsn < $2::pg_lsn)`, [branch, lsn]);
}

export async function deleteBranchState(pool: pg.Pool, branch: string): Promise<void> {
  await withTransaction(pool, async (c) => {
    await c.query(`DELETE FROM etl_meta.cdc_tables WHERE branch_id = $1`, [branch]);
    await c.query(`DELETE FROM etl_meta.cdc_state WHERE branch_id = $1`, [branch]);
  });
}
