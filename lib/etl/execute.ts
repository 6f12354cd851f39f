import path from 'node:path';
import type { ActionContext } from '../config/request';
import { getBranches } from '../connections';
import { openLake } from '../lake';
import { SYNTHETIC_TABLES } from '../sources';
import { branchHandles, syntheticBranches } from './branches';
import { lakeTarget, type LakeTarget } from './lake-target';
import { etlSettingsOf, type EtlRequest } from './request';
import { runEtl, type EtlRunSummary, type BranchHandle } from './runner';
import { resolveTables as resolveTablesFrom, type TablesSource } from '../config/resolve-tables';
import type { TableDef } from '../config/tables-json';
import type { FanoutDeps } from '../jobs/fanout';
import { fanoutDispatch } from './fanout-units';
import { fanoutStagingRoot } from './staging-root';

/** What an ETL run is handed by its caller (the CLI, the `etl.run` job, a test). */
export interface EtlContext extends ActionContext {
  progress?: (done: number, total: number, phase: string) => void;
  /**
   * Fan the run's units out over every worker as `etl.unit` jobs (the job's
   * context when TRIBUTARY_FANOUT=on; lib/etl/fanout-units.ts). (Default: extract in this process)
   */
  fanout?: Omit<FanoutDeps, 'logger' | 'signal' | 'env' | 'pool'>;
}

/** Test seams. */
export interface EtlOverrides {
  /** Replace the lake write step. (Default: lib/lake in env.warehouse) */
  target?: LakeTarget;
  /** Replace the branches. (Default: the connection records marked as branches) */
  branches?: BranchHandle[];
}

/** The tables an ETL request runs against (the self-test's synthetic set included). */
export function resolveTables(ctx: Pick<EtlContext, 'env' | 'paths' | 'style'>, r: TablesSource): Promise<TableDef[]> {
  return resolveTablesFrom(ctx, r, { synthetic: SYNTHETIC_TABLES });
}

/** Everything `tributary etl` and the `etl.run` job do: resolve tables, branches and the lake, then run. */
export async function executeEtl(ctx: EtlContext, request: EtlRequest, o: EtlOverrides = {}): Promise<EtlRunSummary> {
  const s = etlSettingsOf(request);
  const tables = await resolveTables(ctx, request);
  const branches = o.branches ?? (request.selfTest ? syntheticBranches() : branchHandles(await getBranches({ pool: ctx.pool, keys: { secret: ctx.env.TRIBUTARY_SECRET, dataDir: ctx.env.dataDir } }), {
    poolSizeOverride: request.poolSize, defaultPoolSize: s.poolSize, oracleClientLibDirEnv: ctx.env.ORACLE_CLIENT_LIB_DIR, oracleClientLibDirConfig: ctx.oracleClientLibDir,
  }));
  const target = o.target ?? lakeTarget(openLake({ pool: ctx.pool, warehouse: ctx.env.warehouse, s3: ctx.env.s3, logger: ctx.logger }), { namespace: s.namespace, keepStaging: s.keepStaging, codec: s.compression });
  const fan = ctx.fanout && !request.plan ? ctx.fanout : undefined;
  try {
    return await runEtl({
      pool: ctx.pool, target, branches, tables, settings: s, logger: ctx.logger, signal: ctx.signal, runId: ctx.runId, plan: request.plan,
      stagingRoot: fan ? fanoutStagingRoot(ctx.env) : path.join(ctx.env.dataDir, 'staging'), progress: ctx.progress,
      dispatch: fan ? fanoutDispatch({ ...fan, pool: ctx.pool, env: ctx.env, request }) : undefined,
    });
  } finally {
    if (!o.branches) {
      await Promise.all(branches.map((b) => b.source.close().catch((e) => ctx.logger.warn('etl: closing a branch source failed', { branch: b.key, error: (e as Error).message }))));
    }
  }
}
