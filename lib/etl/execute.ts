import path from 'node:path';
import type pg from 'pg';
import type { Env } from '../config/env';
import type { Logger } from '../log';
import { getBranches } from '../connections';
import { openLake } from '../lake';
import { SYNTHETIC_TABLES } from '../sources';
import { branchHandles, syntheticBranches } from './branches';
import { lakeTarget, type LakeTarget } from './lake-target';
import { runEtl, type EtlRunSummary, type BranchHandle } from './runner';
import type { EtlSettings } from './settings';
import { loadTablesConfig, parseTablesConfig } from './tables-config';

export interface ExecuteEtlOptions {
  /** tables.json path. (Default: ./tables.json) */
  tablesFile?: string;
  /** Synthetic branches and tables, no external database; lake namespace `selftest`. */
  selfTest?: boolean;
  plan?: boolean;
  runId?: string;
  /** --pool-size given explicitly (overrides each branch's pool_size). */
  poolSizeOverride?: number;
  oracleClientLibDir?: string;
  /** The process environment's ORACLE_CLIENT_LIB_DIR (passed in; engines never read process.env). */
  oracleClientLibDirEnv?: string;
  progress?: (done: number, total: number, phase: string) => void;
  /** Replace the lake write step (tests). (Default: lib/lake in env.warehouse) */
  target?: LakeTarget;
  /** Replace the branches (tests). (Default: the connection records marked as branches) */
  branches?: BranchHandle[];
}

/** Everything `tributary etl` and the `etl.run` job do: resolve tables, branches and the lake, then run. */
export async function executeEtl(ctx: { pool: pg.Pool; env: Env; logger: Logger; signal?: AbortSignal }, settings: EtlSettings, o: ExecuteEtlOptions = {}): Promise<EtlRunSummary> {
  const s = { ...settings };
  const tables = o.selfTest ? parseTablesConfig(SYNTHETIC_TABLES, 'self-test tables') : await loadTablesConfig(o.tablesFile ?? path.resolve('tables.json'));
  if (o.selfTest && s.namespace === 'etl') s.namespace = 'selftest';
  const branches = o.branches ?? (o.selfTest ? syntheticBranches() : branchHandles(await getBranches({ pool: ctx.pool, keys: { secret: ctx.env.TRIBUTARY_SECRET, dataDir: ctx.env.dataDir } }), {
    poolSizeOverride: o.poolSizeOverride, defaultPoolSize: s.poolSize, oracleClientLibDirEnv: o.oracleClientLibDirEnv, oracleClientLibDirConfig: o.oracleClientLibDir,
  }));
  const target = o.target ?? lakeTarget(openLake({ pool: ctx.pool, warehouse: ctx.env.warehouse, s3: ctx.env.s3, logger: ctx.logger }), { namespace: s.namespace, keepStaging: s.keepStaging, codec: s.compression });
  try {
    return await runEtl({
      pool: ctx.pool, target, branches, tables, settings: s, logger: ctx.logger, signal: ctx.signal, runId: o.runId, plan: o.plan,
      stagingRoot: path.join(ctx.env.dataDir, 'staging'), progress: o.progress,
    });
  } finally {
    if (!o.branches) await Promise.all(branches.map((b) => b.source.close().catch(() => {})));
  }
}
