import { dataDirPaths } from '../config/data-path';
import { branchDescriptorOf, getBranches } from '../connections';
import { openLake } from '../lake';
import { unitDatasets, type LakeTableFacts, type LineageDatasets } from '../lineage';
import type { JobContext } from '../jobs/types';
import { resolveTables } from './execute';
import { etlSettingsOf, type EtlRequest } from './request';
import type { UnitResult } from './run-types';

/**
 * The datasets of one ETL run for OpenLineage: every (source table × branch) read as
 * an input, every lake table written as an output with its Iceberg schema and the rows
 * the run wrote into it. Self-test branches (synthetic, no database) and subquery
 * sources name no source table and give no input.
 */
export async function etlLineage(ctx: Pick<JobContext, 'pool' | 'env'>, p: EtlRequest, units: Pick<UnitResult, 'table' | 'branch' | 'rows' | 'status'>[]): Promise<LineageDatasets> {
  const ran = units.filter((u) => u.status !== 'PLANNED');
  if (!ran.length) return { inputs: [], outputs: [] };
  const s = etlSettingsOf(p);
  const tables = await resolveTables({ env: ctx.env, paths: dataDirPaths(ctx.env.dataDir), style: 'params' }, p);
  const branches = p.selfTest ? [] : await getBranches({ pool: ctx.pool, keys: { secret: ctx.env.TRIBUTARY_SECRET, dataDir: ctx.env.dataDir } });
  const lake = openLake({ pool: ctx.pool, warehouse: ctx.env.warehouse, s3: ctx.env.s3 });
  const lakeTables = new Map<string, LakeTableFacts>();
  for (const name of new Set(ran.map((u) => u.table))) {
    const t = await lake.loadTable(`${s.namespace}.${name}`).catch(() => null); // a first load that failed created no table
    if (!t) continue;
    const m = t.metadata();
    const schema = m.schemas.find((x) => x['schema-id'] === m['current-schema-id']) ?? m.schemas[m.schemas.length - 1];
    lakeTables.set(name, { location: t.location, fields: schema.fields });
  }
  return unitDatasets({
    units: ran.map((u) => ({ table: u.table, branch: u.branch, rows: u.rows, wrote: u.status === 'SUCCESS' })),
    sources: new Map(tables.map((t) => [t.lakeName, t.source])),
    branches: new Map(branches.map((b) => [b.key, branchDescriptorOf(b)])),
    lakeTables, writes: true,
  });
}
