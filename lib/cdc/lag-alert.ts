import type pg from 'pg';
import type { FreshnessAlerts } from '../config/freshness';
import { withTransaction } from '../db';
import { toError } from '../errors';
import { intervalTask } from '../jobs/interval-task';
import type { JobCatalog } from '../jobs/types';
import type { Logger } from '../log';
import { enqueueAlertMail } from '../mail/alert-job';
import { cdcFigures, type SourceOf } from './figures';
import { buildLagAlertMail, type LagAlertChange } from './lag-alert-mail';

/** Held for one check's transaction: two leaders for a moment (a lock hand-over) still check one after the other. */
const CHECK_LOCK_KEY = 7_401_337_025;

/** Back under this share of the threshold before a recovered mail: a slot hovering at the threshold does not mail at every check. */
export const RECOVER_RATIO = 0.8;

export interface LagAlertResult { changes: LagAlertChange[]; alertRunIds: string[] }

/**
 * One lag check, run by the flow scheduler's leader (so one installation-wide). Each streamed
 * branch's retained WAL (`pg_current_wal_lsn() - restart_lsn` on its source: what threatens the
 * source's disk) is compared with `thresholdBytes`, and with the state the last check stored in
 * etl_meta.cdc_lag_alerts: passing the threshold alerts, falling under 80 % of it recovers, and
 * each change queues one mail.send job in the transaction that stores it. So a restart, a second
 * worker or the next check sends nothing while the state holds. A branch whose source cannot be
 * read keeps its state (unknown is no change).
 */
export async function checkCdcLag(o: {
  pool: pg.Pool; logger: Logger; sourceOf: SourceOf;
  /** Retained WAL that alerts (TRIBUTARY_CDC_LAG_ALERT_BYTES); 0: no alert, and none held. */
  thresholdBytes: number;
  /** Who hears of it (tables.json `freshness_alerts`, as the freshness alerts); null: recorded, shown, not mailed. */
  alerts: FreshnessAlerts | null;
  /** The job kinds and settings of this process: the mail is a mail.send job. */
  catalog: JobCatalog;
  /** Base URL of the panel, for the link in the mail. (Default: http://127.0.0.1:8765) */
  publicUrl?: string;
}): Promise<LagAlertResult> {
  if (o.thresholdBytes <= 0) {
    await o.pool.query(`DELETE FROM etl_meta.cdc_lag_alerts`);
    return { changes: [], alertRunIds: [] };
  }
  // the sources are read before the transaction: a slow source must not hold the lock
  const figures = await cdcFigures(o.pool, o.sourceOf);
  return withTransaction(o.pool, async (c) => {
    await c.query('SELECT pg_advisory_xact_lock($1)', [CHECK_LOCK_KEY]);
    const prev = new Map<string, boolean>((await c.query(`SELECT branch_id, alerting FROM etl_meta.cdc_lag_alerts`)).rows.map((r) => [r.branch_id, r.alerting]));
    const changes: LagAlertChange[] = [];
    for (const f of figures) {
      if (f.retainedWalBytes === null) continue;
      const was = prev.get(f.branch) ?? false;
      const now = was ? f.retainedWalBytes >= o.thresholdBytes * RECOVER_RATIO : f.retainedWalBytes > o.thresholdBytes;
      if (now !== was) changes.push({ branch: f.branch, to: now ? 'alerting' : 'recovered', retainedBytes: f.retainedWalBytes, lagBytes: f.lagBytes, thresholdBytes: o.thresholdBytes, status: f.status });
      await c.query(`INSERT INTO etl_meta.cdc_lag_alerts (branch_id, alerting, retained_bytes, threshold_bytes, since, checked_at) VALUES ($1, $2, $3, $4, now(), now())
        ON CONFLICT (branch_id) DO UPDATE SET alerting = EXCLUDED.alerting, threshold_bytes = EXCLUDED.threshold_bytes, checked_at = now(),
          retained_bytes = CASE WHEN cdc_lag_alerts.alerting = EXCLUDED.alerting THEN cdc_lag_alerts.retained_bytes ELSE EXCLUDED.retained_bytes END,
          since = CASE WHEN cdc_lag_alerts.alerting = EXCLUDED.alerting THEN cdc_lag_alerts.since ELSE now() END`,
      [f.branch, now, f.retainedWalBytes, o.thresholdBytes]);
    }
    // a branch dropped (`cdc drop`) has no slot left to threaten the source: its alert goes
    await c.query(`DELETE FROM etl_meta.cdc_lag_alerts WHERE NOT (branch_id = ANY($1::text[]))`, [figures.map((f) => f.branch)]);
    const alertRunIds: string[] = [];
    for (const ch of changes) {
      o.logger[ch.to === 'alerting' ? 'warn' : 'info'](`cdc: lag ${ch.to === 'alerting' ? 'alert' : 'recovered'}`, { branch: ch.branch, retainedBytes: ch.retainedBytes, thresholdBytes: ch.thresholdBytes });
      if (!o.alerts) { o.logger.warn('cdc: lag alert with no freshness_alerts recipients in tables.json: not mailed', { branch: ch.branch }); continue; }
      const mail = buildLagAlertMail(ch, o.publicUrl ?? 'http://127.0.0.1:8765');
      const runId = await enqueueAlertMail(c as pg.PoolClient, o.catalog, { createdBy: 'cdc', alerts: o.alerts, mail });
      alertRunIds.push(runId);
      await c.query(`UPDATE etl_meta.cdc_lag_alerts SET alert_run_id = $2 WHERE branch_id = $1`, [ch.branch, runId]);
    }
    return { changes, alertRunIds };
  });
}

/**
 * The leader's periodic task: check every `everyMs`, reading the branches' connections and the
 * recipients afresh each time. A failing check is logged and tried again at the next interval.
 */
export function cdcLagLeaderTask(o: {
  pool: pg.Pool; logger: Logger; catalog: JobCatalog; thresholdBytes: number; publicUrl?: string;
  /** The branch connections' settings, looked up afresh per check (figures.ts `branchSources`). */
  sources: () => SourceOf;
  loadAlerts: () => Promise<FreshnessAlerts | null>;
  /** Time between checks. (Default: 30000 ms) */
  everyMs?: number;
}): (now: Date) => Promise<void> {
  return intervalTask({ everyMs: o.everyMs ?? 30_000, logger: o.logger, failed: 'cdc: lag check failed; the next interval tries again' }, async () => {
    // recipients that do not load (a broken tables.json) still record the state: the gauge shows it
    const alerts = o.thresholdBytes > 0 ? await o.loadAlerts().catch((e) => { o.logger.warn('cdc: lag alert recipients not readable', { error: toError(e).message }); return null; }) : null;
    await checkCdcLag({ pool: o.pool, logger: o.logger, sourceOf: o.sources(), thresholdBytes: o.thresholdBytes, alerts, catalog: o.catalog, publicUrl: o.publicUrl });
  });
}
