import type pg from 'pg';
import type { Env } from '../config/env';
import { checkPayloadTables } from '../config/resolve-tables';
import { checkBranchKeys } from '../connections';
import { SYNTHETIC_TABLES } from '../sources';
import type { EtlRequest } from './request';

/**
 * What an `etl.run` payload names must exist when it is posted: its tables
 * file inside the data folder and valid, each table among its definitions,
 * each branch among the branch connections.
 */
export async function checkEtlRequest(deps: { pool: pg.Pool; env: Env }, p: EtlRequest): Promise<void> {
  await checkPayloadTables(deps.env, p, { synthetic: SYNTHETIC_TABLES });
  if (!p.selfTest) await checkBranchKeys({ pool: deps.pool, keys: { secret: deps.env.TRIBUTARY_SECRET, dataDir: deps.env.dataDir } }, p.branch);
}
