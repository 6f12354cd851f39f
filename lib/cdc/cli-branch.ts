import type { CliContext } from '../cli/context';
import { getBranches } from '../connections';
import { localPaths } from '../config/data-path';
import { AppError } from '../errors';
import { branchHandles, executeEtl, EtlRequest } from '../etl';
import { createPostgresSource } from '../sources';
import type { CdcTarget } from './branch';
import type { CdcRequest } from './request';

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
