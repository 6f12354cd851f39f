import { branchDescriptorOf, getBranches } from '../connections';
import type { ActionContext } from '../config/request';
import { resolveTables } from '../config/resolve-tables';
import type { TableDef } from '../config/tables-json';
import { AppError } from '../errors';
import { openLake, type Lake } from '../lake';
import { pgConfigOf, type PgConnectConfig, type PostgresDescriptor } from '../sources';
import { CDC_DEFAULTS, type CdcRequest } from './request';

/** What a `tributary cdc` command works on: the branch's connection, its tables, the lake. */
export interface CdcTarget { key: string; descriptor: PostgresDescriptor; source: PgConnectConfig; tables: TableDef[]; namespace: string; lake: Lake }

/** The branch of `--branch`: a PostgreSQL branch connection set to `cdc: log`, else an error saying what to change. */
export async function cdcTarget(ctx: Pick<ActionContext, 'pool' | 'env' | 'logger' | 'paths' | 'style'>, r: CdcRequest): Promise<CdcTarget> {
  const all = await getBranches({ pool: ctx.pool, keys: { secret: ctx.env.TRIBUTARY_SECRET, dataDir: ctx.env.dataDir } });
  const b = all.find((x) => x.key === r.branch);
  if (!b) throw new AppError('not_found', `cdc: ${ctx.style === 'flags' ? '--branch' : 'params.branch'} ${r.branch}: no such branch (branches: ${all.map((x) => x.key).join(', ') || 'none'})`, { field: 'branch' });
  if (b.kind !== 'postgres') throw new AppError('validation', `cdc: ${ctx.style === 'flags' ? '--branch' : 'params.branch'} ${r.branch} is an ${b.kind} branch: streaming reads PostgreSQL's logical replication only`, { field: 'branch' });
  if (b.params.cdc !== 'log') {
    throw new AppError('validation', `cdc: ${ctx.style === 'flags' ? '--branch' : 'params.branch'} ${r.branch} is not set to stream: set \`cdc = "log"\` on its connection (e.g. in its [postgres_branches.${r.branch}] section, then \`tributary connections import\`)`, { field: 'branch' });
  }
  const descriptor = branchDescriptorOf(b) as PostgresDescriptor;
  const tables = (await resolveTables({ env: ctx.env, paths: ctx.paths, style: ctx.style }, { tablesFile: r.tablesFile })).filter((t) => !/\s/.test(t.source.trim()));
  const lake = openLake({ pool: ctx.pool, warehouse: ctx.env.warehouse, s3: ctx.env.s3, logger: ctx.logger });
  return { key: b.key, descriptor, source: pgConfigOf(descriptor), tables, namespace: r.namespace ?? CDC_DEFAULTS.namespace, lake };
}

