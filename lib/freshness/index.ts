/**
 * Freshness expectations (issue 24): per lake table and model, from
 * tables.json and the models project's schema.yml; each asset's status from
 * its last successful load or build; the scheduler leader's check that
 * records transitions and alerts once per breach. Public entry of `lib/freshness/`.
 */
export { computeFreshness, statusOf, assetKey, FRESHNESS_STATUSES, type AssetExpectation, type AssetFreshness, type FreshnessObservations, type FreshnessStatus, type FreshnessAssetKind } from './status';
export { assembleExpectations } from './expectations';
export { parseYmlFreshness, type YmlFreshness } from './schema-yml-freshness';
export { observeFreshness } from './observe';
export { loadFreshnessConfig, freshnessSources, type FreshnessConfig, type FreshnessSources } from './load';
export { checkFreshness, freshnessLeaderTask, alertsOnTransition, type FreshnessCheckResult } from './check';
export { buildFreshnessAlertMail, formatLag } from './alert-mail';
export { freshnessReport, type FreshnessReport } from './report';
