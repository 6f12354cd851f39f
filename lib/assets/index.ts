/**
 * The asset graph: source tables per branch → lake tables → models, seeds and
 * tests, with each node's last load or build, DQ per branch, schema and the
 * flows naming it; and the jobs a run from a node needs. Public entry of
 * `lib/assets/`.
 */
export { buildAssetGraph, sourceNodeId, lakeNodeId, type AssetInputs } from './build-graph';
export { planAssetRun } from './plan-run';
export { collapseGroups, searchAssets, groupNodeId, type DrawnNode } from './collapse';
export { loadAssetGraph, type AssetDeps } from './load-graph';
export { runAssets, type AssetRunRequest } from './run-assets';
export type * from './types';
