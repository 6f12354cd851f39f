import type pg from 'pg';
import type { Registry } from 'prom-client';
import type { Env } from '../config/env';
import { openLake } from '../lake';
import { SCHEDULER_LOCK_KEY } from '../flows';
import { branchDescriptorOf, getBranches } from '../connections';
import { pgConfigOf, type PostgresDescriptor } from '../sources';
import { cdcFigures } from '../cdc/figures';
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

/** The streamed branches' figures, each slot read through the branch's own connection. */
async function cdcFiguresOf(deps: { pool: pg.Pool; env: Env }) {
  let branches: ReturnType<typeof getBranches> | null = null;
  return cdcFigures(deps.pool, async (key) => {
    // read once per scrape, and only when some branch streams
    branches ??= getBranches({ pool: deps.pool, keys: { secret: deps.env.TRIBUTARY_SECRET, dataDir: deps.env.dataDir } });
    const b = (await branches).find((x) => x.key === key);
    return b?.kind === 'postgres' ? pgConfigOf(branchDescriptorOf(b) as PostgresDescriptor) : null;
  });
}
