import type { CliContext } from '../cli/context';
import { branchDescriptorOf, getBranches } from '../connections';
import { localPaths } from '../config/data-path';
import { AppError } from '../errors';
import { branchHandles, executeEtl, EtlRequest, resolveTables, type TableDef } from '../etl';
import { openLake, type Lake } from '../lake';
import { createPostgresSource, pgConfigOf, type PgConnectConfig, type PostgresDescriptor } from '../sources';
import { CDC_DEFAULTS, type CdcRequest } from './request';

/** What a `tributary cdc` command works on: the branch's connection, its tables, the lake. */
export interface CdcTarget { key: string; descriptor: PostgresDescriptor; source: PgConnectConfig; tables: TableDef[]; namespace: string; lake: Lake }

/** The branch of `--branch`: a PostgreSQL branch connection set to `cdc: log`, else an error saying what to change. */
export async function cdcTarget(ctx: CliContext, r: CdcRequest): Promise<CdcTarget> {
  const all = await getBranches({ pool: ctx.pool, keys: { secret: ctx.env.TRIBUTARY_SECRET, dataDir: ctx.env.dataDir } });
  const b = all.find((x) => x.key === r.branch);
  if (!b) throw new AppError('not_found', `cdc: --branch ${r.branch}: no such branch (branches: ${all.map((x) => x.key).join(', ') || 'none'})`, { field: 'branch' });
  if (b.kind !== 'postgres') throw new AppError('validation', `cdc: --branch ${r.branch} is an ${b.kind} branch: streaming reads PostgreSQL's logical replication only`, { field: 'branch' });
  if (b.params.cdc !== 'log') {
    throw new AppError('validation', `cdc: --branch ${r.branch} is not set to stream: set \`cdc = "log"\` on its connection (e.g. in its [postgres_branches.${r.branch}] section, then \`tributary connections import\`)`, { field: 'branch' });
  }
  const descriptor = branchDescriptorOf(b) as PostgresDescriptor;
  const tables = (await resolveTables({ env: ctx.env, paths: localPaths, style: 'flags' }, { tablesFile: r.tablesFile })).filter((t) => !/\s/.test(t.source.trim()));
  const lake = openLake({ pool: ctx.pool, warehouse: ctx.env.warehouse, s3: ctx.env.s3, logger: ctx.logger });
  return { key: b.key, descriptor, source: pgConfigOf(descriptor), tables, namespace: r.namespace ?? CDC_DEFAULTS.namespace, lake };
}

/**
 * The INITIAL of one branch through lib/etl, its reads in the slot's exported snapshot. Every
 * branch is handed to the run (only this one selected), so the load merges this branch's rows and
 * leaves the other branches' as they are.
 */
export async function initialInSnapshot(ctx: CliContext, t: CdcTarget, r: CdcRequest, snapshot: string): Promise<void> {
  const configs = await getBranches({ pool: ctx.pool, keys: { secret: ctx.env.TRIBUTARY_SECRET, dataDir: ctx.env.dataDir } });
  const handles = branchHandles(configs.filter((c) => c.key !== t.key), { defaultPoolSize: 1, oracleClientLibDirEnv: ctx.env.ORACLE_CLIENT_LIB_DIR });
  const mine = createPostgresSource({ ...t.descriptor, branch: t.key, poolSize: t.descriptor.poolSize ?? 4, snapshot });
  handles.push({ key: t.key, source: mine, fetchBatchSize: t.descriptor.fetchBatchSize });
  const request = EtlRequest.parse({ mode: 'INITIAL', branch: [t.key], namespace: t.namespace, ...(r.tablesFile ? { tablesFile: r.tablesFile } : {}) });
  try {
    const s = await executeEtl({ ...ctx, paths: localPaths, style: 'flags', runId: undefined }, request, { branches: handles });
    const bad = s.units.filter((u) => u.status !== 'SUCCESS');
    if (!s.ok || bad.length) throw new AppError('fatal', `cdc: the initial load of branch ${t.key} failed (run ${s.runId}): ${bad.map((u) => `${u.table}: ${u.error ?? u.status}`).join('; ')}`);
  } finally {
    await Promise.all(handles.map((h) => h.source.close().catch(() => {})));
  }
}
