import type pg from 'pg';
import type { Registry } from 'prom-client';
import type { Env } from '../config/env';
import { openLake } from '../lake';
import { SCHEDULER_LOCK_KEY } from '../flows';
import { branchSources, cdcFigures } from '../cdc/figures';
import { createMetricsRegistry } from './registry';

export { createMetricsRegistry, type MetricsDeps } from './registry';
export { lakeFigures } from './lake-metrics';

// One registry per pool, so per web process: prom-client's default collectors keep state between scrapes.
const registries = new WeakMap<pg.Pool, Registry>();

/** `GET /metrics`: the Prometheus text exposition of this installation. */
export async function metricsResponse(deps: { pool: pg.Pool; env: Env }): Promise<Response> {
  let r = registries.get(deps.pool);
  if (!r) {
    r = createMetricsRegistry({ pool: deps.pool, lake: openLake({ pool: deps.pool, warehouse: deps.env.warehouse, s3: deps.env.s3 }), schedulerLockKey: SCHEDULER_LOCK_KEY, cdc: () => cdcFiguresOf(deps) });
    registries.set(deps.pool, r);
  }
  return new Response(await r.metrics(), { headers: { 'content-type': r.contentType, 'cache-control': 'no-store' } });
}

/** The streamed branches' figures, each slot read through the branch's own connection (once per scrape). */
function cdcFiguresOf(deps: { pool: pg.Pool; env: Env }) {
  return cdcFigures(deps.pool, branchSources(deps));
}
