import type pg from 'pg';
import type { Env } from '../config/env';
import { dataDirPaths } from '../config/data-path';
import { checkPayloadTables } from '../config/resolve-tables';
import { checkBranchKeys } from '../connections';
import { SYNTHETIC_TABLES } from '../sources';
import type { DqRequest } from './request';

/** What a `dq.run` payload names must exist when it is posted: tables, branches, and a CSV folder inside the data folder. */
export async function checkDqRequest(deps: { pool: pg.Pool; env: Env }, p: DqRequest): Promise<void> {
  await checkPayloadTables(deps.env, p, { synthetic: p.selfTest && !p.tablesFile ? SYNTHETIC_TABLES : undefined });
  if (!p.selfTest) await checkBranchKeys({ pool: deps.pool, keys: { secret: deps.env.TRIBUTARY_SECRET, dataDir: deps.env.dataDir } }, p.branch);
  if (p.csv !== undefined) await dataDirPaths(deps.env.dataDir)('params.csv', p.csv, 'write');
}
