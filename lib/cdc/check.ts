import type pg from 'pg';
import type { Env } from '../config/env';
import { checkPayloadTables } from '../config/resolve-tables';
import { checkBranchKeys } from '../connections';
import type { CdcRequest } from './request';

/**
 * What a `cdc.stream` payload names must exist when it is posted, as for `etl.run`: its tables
 * file inside the data folder and valid, and its branch among the branch connections.
 */
export async function checkCdcRequest(deps: { pool: pg.Pool; env: Env }, p: CdcRequest): Promise<void> {
  await checkPayloadTables(deps.env, { tablesFile: p.tablesFile, tables: [] });
  await checkBranchKeys({ pool: deps.pool, keys: { secret: deps.env.TRIBUTARY_SECRET, dataDir: deps.env.dataDir } }, p.branch);
}
