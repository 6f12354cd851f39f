import type pg from 'pg';
import { AppError } from '../errors';
import { TablesConfigError } from '../config/tables-json';
import { loadFreshnessConfig, type FreshnessSources } from './load';
import { observeFreshness } from './observe';
import { computeFreshness, type AssetFreshness } from './status';

export interface FreshnessReport {
  /** Every asset with an expectation, breaches (error, then warn) first. */
  assets: (AssetFreshness & { statusSince: string | null })[];
  counts: Record<'pass' | 'warn' | 'error' | 'unknown', number>;
  /** Whether breaches are mailed (tables.json `freshness_alerts`). */
  alerts: { recipients: string[]; smtpConnection: string | null } | null;
  problems: string[];
}

const ORDER = { error: 0, warn: 1, unknown: 2, pass: 3 } as const;

/**
 * Every expected asset's freshness now, computed live from the configuration
 * and the database (the same function the leader's check uses), with the time
 * each entered its status as the last check recorded it.
 */
export async function freshnessReport(pool: pg.Pool, src: FreshnessSources, now = new Date()): Promise<FreshnessReport> {
  const config = await loadFreshnessConfig(src).catch((e) => {
    // The installation's file is wrong, not the request: 409 with the file's own message naming the field.
    if (e instanceof TablesConfigError) throw new AppError('conflict', `freshness: ${e.message}`, { field: 'tables.json', cause: e });
    throw e;
  });
  const statuses = computeFreshness(config.expectations, await observeFreshness(pool, config.expectations), now);
  const since = new Map<string, { status: string; since: Date }>((await pool.query('select asset, status, status_since from asset_freshness')).rows.map((r) => [r.asset, { status: r.status, since: r.status_since }]));
  const assets = statuses.map((s) => {
    const k = since.get(s.asset);
    return { ...s, statusSince: k && k.status === s.status ? k.since.toISOString() : null };
  }).sort((a, b) => ORDER[a.status] - ORDER[b.status] || a.asset.localeCompare(b.asset));
  const counts = { pass: 0, warn: 0, error: 0, unknown: 0 };
  for (const s of statuses) counts[s.status]++;
  return {
    assets, counts, problems: config.problems,
    alerts: config.alerts ? { recipients: config.alerts.recipients, smtpConnection: config.alerts.smtp_connection ?? null } : null,
  };
}
