import path from 'node:path';
import type { Env } from './env';
import type { PathPolicy } from './data-path';
import { fieldName, type RequestStyle } from './request';
import { AppError } from '../errors';
import { dataDirPaths } from './data-path';
import { selectTables } from './select-tables';
import { loadTablesConfig, parseTablesConfig, TablesConfigError, type TableDef } from './tables-json';

/** Where a run's table definitions come from (the fields etl and dq requests share). */
export interface TablesSource {
  /** tables.json content inline. */
  tablesJson?: unknown;
  /** A tables.json file, through the caller's path policy. */
  tablesFile?: string;
  selfTest?: boolean;
}

/**
 * The tables a request runs against: inline `tablesJson`, a `tablesFile`
 * (through the caller's path policy: anywhere for the CLI, the data folder for
 * a job), the synthetic set of a self-test (handed in by the caller, which
 * owns it), or the configured tables.json.
 */
export async function resolveTables(
  ctx: { env: Pick<Env, 'TRIBUTARY_TABLES_FILE'>; paths: PathPolicy; style?: RequestStyle },
  r: TablesSource,
  o: { synthetic?: unknown } = {},
): Promise<TableDef[]> {
  const style = ctx.style ?? 'params';
  if (r.tablesJson !== undefined) return parseTablesConfig(r.tablesJson, fieldName(['tablesJson'], style));
  if (r.tablesFile !== undefined) return loadTablesConfig(await ctx.paths(fieldName(['tablesFile'], style), r.tablesFile, 'read'));
  if (r.selfTest && o.synthetic !== undefined) return parseTablesConfig(o.synthetic, 'self-test tables');
  return loadTablesConfig(path.resolve(ctx.env.TRIBUTARY_TABLES_FILE));
}

/**
 * A job payload's tables, checked when it is posted: its file inside the data
 * folder and valid, each named table among the definitions. Errors are
 * AppError('validation') naming the payload field (`params.tables[1]`).
 */
export async function checkPayloadTables(
  env: Pick<Env, 'TRIBUTARY_TABLES_FILE' | 'dataDir'>,
  p: TablesSource & { tables: string[] },
  o: { synthetic?: unknown } = {},
): Promise<TableDef[]> {
  let all: TableDef[];
  try {
    all = await resolveTables({ env, paths: dataDirPaths(env.dataDir), style: 'params' }, p, o);
  } catch (e) {
    if (e instanceof TablesConfigError) throw new AppError('validation', e.message, { field: p.tablesJson !== undefined ? 'params.tablesJson' : 'params.tablesFile' });
    throw e;
  }
  p.tables.forEach((t, i) => {
    try { selectTables(all, [t]); } catch {
      throw new AppError('validation', `params.tables[${i}]: unknown table ${JSON.stringify(t)} (known: ${all.map((d) => d.lakeName).join(', ')})`, { field: `params.tables[${i}]` });
    }
  });
  return all;
}
