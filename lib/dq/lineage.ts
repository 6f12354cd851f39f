import { dataDirPaths } from '../config/data-path';
import { resolveTables } from '../config/resolve-tables';
import { branchDescriptorOf, getBranches } from '../connections';
import { openLake } from '../lake';
import { unitDatasets, type LakeTableFacts, type LineageDatasets } from '../lineage';
import type { JobContext } from '../jobs/types';
import type { DqRequest } from './request';

/**
 * The datasets of one DQ run for OpenLineage: it reads both sides, so every source
 * table on its branch and every lake table it compared (with its schema) is an input.
 * A repair's merge is not reported as an output (it rewrites rows already there).
 */
export async function dqLineage(ctx: Pick<JobContext, 'pool' | 'env'>, p: DqRequest, units: { table: string; branch: string; status: string }[]): Promise<LineageDatasets> {
  const ran = units.filter((u) => u.status !== 'SKIPPED');
  if (!ran.length) return { inputs: [], outputs: [] };
  const tables = p.selfTest ? [] : await resolveTables({ env: ctx.env, paths: dataDirPaths(ctx.env.dataDir), style: 'params' }, p);
  const branches = p.selfTest ? [] : await getBranches({ pool: ctx.pool, keys: { secret: ctx.env.TRIBUTARY_SECRET, dataDir: ctx.env.dataDir } });
  const ns = p.namespace ?? (p.selfTest ? 'selftest' : 'etl');
  const lake = openLake({ pool: ctx.pool, warehouse: ctx.env.warehouse, s3: ctx.env.s3 });
  const lakeTables = new Map<string, LakeTableFacts>();
  for (const name of new Set(ran.map((u) => u.table))) {
    const t = await lake.loadTable(`${ns}.${name}`).catch(() => null);
    if (!t) continue;
    const m = t.metadata();
    const schema = m.schemas.find((x) => x['schema-id'] === m['current-schema-id']) ?? m.schemas[m.schemas.length - 1];
    lakeTables.set(name, { location: t.location, fields: schema.fields });
  }
  return unitDatasets({
    units: ran,
    sources: new Map(tables.map((t) => [t.lakeName, t.source])),
    branches: new Map(branches.map((b) => [b.key, branchDescriptorOf(b)])),
    lakeTables, writes: false,
  });
}
