import type pg from 'pg';
import type { JobCatalog } from '../jobs/types';
import { publicUrl } from '../config/public-url';
import type { Logger } from '../log';
import { withTransaction } from '../pipelines';
import { intervalTask } from '../jobs/interval-task';
import { enqueueAlertMail } from '../mail/alert-job';
import { buildFreshnessAlertMail } from './alert-mail';
import type { FreshnessConfig } from './load';
import { observeFreshness } from './observe';
import { computeFreshness, type AssetFreshness, type FreshnessStatus } from './status';

/** Held for one check's transaction: two leaders for a moment (a lock hand-over) still check one after the other. */
const CHECK_LOCK_KEY = 7_401_337_024;

const SEVERITY: Record<FreshnessStatus, number> = { unknown: 0, pass: 0, warn: 1, error: 2 };

/** Whether moving from `from` (null: first check) to `to` alerts: entering warn or error, or warn worsening to error. Recovery is recorded, not mailed. */
export function alertsOnTransition(from: FreshnessStatus | null, to: FreshnessStatus): boolean {
  return SEVERITY[to] > SEVERITY[from ?? 'pass'];
}

export interface FreshnessCheckResult {
  statuses: AssetFreshness[];
  /** Assets whose status changed at this check. */
  transitions: { asset: string; from: FreshnessStatus | null; to: FreshnessStatus }[];
  /** The mail.send job queued for this check's breaches, if any. */
  alertRunId: string | null;
}

/**
 * One freshness check, run by the flow scheduler's leader (so one per tick
 * installation-wide). The statuses are compared with the state the last
 * check stored (asset_freshness): a change is recorded as an event, and the
 * changes into warn or error are mailed, in one mail.send job queued in the
 * same transaction as the new state. So a breach alerts exactly once — the
 * next check sees the stored state and sends nothing while it holds.
 */
export async function checkFreshness(o: {
  pool: pg.Pool; logger: Logger; config: FreshnessConfig; now?: Date;
  /** The job kinds and settings of this process (its edge's): the alert is a mail.send job. */
  catalog: JobCatalog;
  /** Base URL of the panel, for the link in the mail. (Default: http://127.0.0.1:8765) */
  publicUrl?: string;
}): Promise<FreshnessCheckResult> {
  const now = o.now ?? new Date();
  const statuses = computeFreshness(o.config.expectations, await observeFreshness(o.pool, o.config.expectations), now);
  return withTransaction(o.pool, async (c) => {
    await c.query('select pg_advisory_xact_lock($1)', [CHECK_LOCK_KEY]);
    const prev = new Map<string, FreshnessStatus>((await c.query('select asset, status from asset_freshness')).rows.map((r) => [r.asset, r.status]));
    const transitions: FreshnessCheckResult['transitions'] = [];
    const breaches: AssetFreshness[] = [];
    for (const s of statuses) {
      const from = prev.get(s.asset) ?? null;
      const changed = from !== s.status;
      await c.query(`insert into asset_freshness (asset, kind, status, lag_seconds, last_success_at, worst_branch, warn_after_seconds, error_after_seconds, checked_at, status_since)
          values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)
        on conflict (asset) do update set kind = excluded.kind, status = excluded.status, lag_seconds = excluded.lag_seconds, last_success_at = excluded.last_success_at,
          worst_branch = excluded.worst_branch, warn_after_seconds = excluded.warn_after_seconds, error_after_seconds = excluded.error_after_seconds,
          checked_at = excluded.checked_at, status_since = case when asset_freshness.status = excluded.status then asset_freshness.status_since else excluded.checked_at end`,
      [s.asset, s.kind, s.status, s.lagSeconds, s.lastSuccessAt, s.worstBranch, s.warnAfterSeconds, s.errorAfterSeconds, now]);
      // A first check that finds an asset passing (or never loaded) is no change worth a row.
      if (changed && (from !== null || SEVERITY[s.status] > 0)) transitions.push({ asset: s.asset, from, to: s.status });
      if (changed && alertsOnTransition(from, s.status)) breaches.push(s);
    }
    // An expectation removed from the configuration: its state goes (metrics and the overview stop showing it).
    const current = statuses.map((s) => s.asset);
    await c.query('delete from asset_freshness where not (asset = any($1::text[]))', [current]);

    let alertRunId: string | null = null;
    if (breaches.length && o.config.alerts) {
      const mail = buildFreshnessAlertMail(breaches, o.publicUrl ?? publicUrl());
      alertRunId = await enqueueAlertMail(c as pg.PoolClient, o.catalog, { createdBy: 'freshness', alerts: o.config.alerts, mail });
    } else if (breaches.length) {
      o.logger.warn('freshness: breach with no freshness_alerts recipients in tables.json: not mailed', { assets: breaches.map((b) => b.asset).join(', ') });
    }
    const alerted = new Set(breaches.map((b) => b.asset));
    for (const t of transitions) {
      const s = statuses.find((x) => x.asset === t.asset)!;
      await c.query('insert into asset_freshness_events (asset, from_status, to_status, lag_seconds, alert_run_id, at) values ($1, $2, $3, $4, $5, $6)',
        [t.asset, t.from, t.to, s.lagSeconds, alerted.has(t.asset) ? alertRunId : null, now]);
      o.logger.info('freshness: status changed', { asset: t.asset, from: t.from ?? 'none', to: t.to, alertRunId: alerted.has(t.asset) ? alertRunId : undefined });
    }
    return { statuses, transitions, alertRunId };
  });
}

/**
 * The leader's periodic task: check every `everyMs`, reading the configuration
 * afresh each time (an edited tables.json or schema.yml applies without a
 * restart). A failing check is logged and tried again at the next interval.
 */
export function freshnessLeaderTask(o: {
  pool: pg.Pool; logger: Logger; load: () => Promise<FreshnessConfig>; publicUrl?: string; catalog: JobCatalog;
  /** Time between checks. (Default: 60000 ms) */
  everyMs?: number;
}): (now: Date) => Promise<void> {
  return intervalTask({ everyMs: o.everyMs ?? 60_000, logger: o.logger, failed: 'freshness: check failed; the next interval tries again' }, async (now) => {
    const config = await o.load();
    for (const p of config.problems) o.logger.warn(`freshness: ${p}`);
    await checkFreshness({ pool: o.pool, catalog: o.catalog, logger: o.logger, config, publicUrl: o.publicUrl, now });
  });
}
