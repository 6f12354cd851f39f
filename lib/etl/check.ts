import type pg from 'pg';
import type { Env } from '../config/env';
import { dataDirPaths } from '../config/data-path';
import { AppError } from '../errors';
import { listConnections } from '../connections';
import { resolveTables } from './execute';
import type { EtlRequest } from './request';
import { selectTables } from './runner';
import { TablesConfigError, type TableDef } from './tables-config';

/**
 * What an `etl.run` (or `dq.run`) payload names must exist when it is posted:
 * its tables file inside the data folder and valid, each table among its
 * definitions, each branch among the branch connections. Errors name the
 * payload field (`params.tables[1]`).
 */
export async function checkEtlRequest(deps: { pool: pg.Pool; env: Env }, p: Pick<EtlRequest, 'tablesFile' | 'tablesJson' | 'selfTest' | 'tables' | 'branch'>): Promise<TableDef[]> {
  let tables: TableDef[];
  try {
    tables = await resolveTables({ env: deps.env, paths: dataDirPaths(deps.env.dataDir), style: 'params' }, p);
  } catch (e) {
    if (e instanceof TablesConfigError) {
      const field = p.tablesJson !== undefined ? 'params.tablesJson' : p.tablesFile !== undefined ? 'params.tablesFile' : 'params.tablesFile';
      throw new AppError('validation', e.message, { field });
    }
    throw e;
  }
  p.tables.forEach((t, i) => {
    try { selectTables(tables, [t]); } catch {
      throw new AppError('validation', `params.tables[${i}]: unknown table ${JSON.stringify(t)} (known: ${tables.map((d) => d.lakeName).join(', ')})`, { field: `params.tables[${i}]` });
    }
  });
  if (!p.selfTest && p.branch.length) {
    const known = (await listConnections({ pool: deps.pool, keys: { secret: deps.env.TRIBUTARY_SECRET, dataDir: deps.env.dataDir } }, { branchesOnly: true })).map((c) => c.branchKey ?? c.name);
    p.branch.forEach((b, i) => {
      if (!known.includes(b)) throw new AppError('validation', `params.branch[${i}]: unknown branch ${JSON.stringify(b)} (known: ${known.join(', ') || 'none — add connections marked as branches'})`, { field: `params.branch[${i}]` });
    });
  }
  return tables;
}
