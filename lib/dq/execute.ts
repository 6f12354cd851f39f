import path from 'node:path';
import type pg from 'pg';
import type { Env } from '../config/env';
import type { Logger } from '../log';
import { getBranches, type BranchConfig } from '../connections';
import { openLake, type Lake } from '../lake';
import { resolveOracleClientLibDir, SYNTHETIC_TABLES } from '../sources';
import { loadTablesConfig, parseTablesConfig, selectTables } from '../etl';
import { writeResultsCsv } from './csv';
import { newDqRunId } from './result';
import { writeDqResults } from './results';
import { runDq, type DqOptions, type DqRunSummary } from './run';
import { runSelfTest } from './self-test';
import { openOracleDqSource, openPostgresDqSource, type DqBranch } from './source';

export class DqUsageError extends Error {
  constructor(message: string) { super(message); this.name = 'DqUsageError'; }
}

export interface ExecuteDqOptions extends DqOptions {
  /** Branch keys (--branch). (Default: every branch) */
  branches?: string[];
  /** Tables (--tables): OWNER.TABLE, TABLE, subquery name or lake name. (Default: all) */
  tables?: string[];
  /** tables.json path. (Default: ./tables.json) */
  tablesFile?: string;
  /** Reconcile the lake against kept staging Parquet; no source database (namespace selftest, synthetic tables). (Default: false) */
  selfTest?: boolean;
  /** Also write `<dir>/<runId>.csv`. (Default: none) */
  csvDir?: string;
  oracleClientLibDir?: string;
  oracleClientLibDirEnv?: string;
  /** Replace the branches (tests). (Default: the connection records marked as branches) */
  dqBranches?: DqBranch[];
  /** Replace the lake (tests). (Default: lib/lake on env.warehouse) */
  lake?: Lake;
  progress?: (done: number, total: number) => void;
}

const num = (v: unknown) => (v === undefined || v === null || v === '' ? undefined : Number(v));

/** Branch connection records → reconciler branches (one connection each, opened when the branch's turn comes). */
export function dqBranchesOf(configs: BranchConfig[], o: { oracleClientLibDirEnv?: string; oracleClientLibDir?: string } = {}): DqBranch[] {
  return configs.map((c) => {
    const p = c.params;
    if (c.kind === 'oracle') {
      return {
        key: c.key,
        open: () => openOracleDqSource({
          branch: c.key, user: String(p.user ?? ''), password: c.secrets.password ?? '',
          dsn: (p.dsn as string | undefined) ?? c.secrets.connection_string, host: p.host as string | undefined, port: num(p.port),
          serviceName: (p.service_name ?? p.serviceName) as string | undefined, sid: p.sid as string | undefined,
          clientLibDir: resolveOracleClientLibDir({ envValue: o.oracleClientLibDirEnv, configValue: o.oracleClientLibDir ?? (p.oracle_client_lib_dir as string | undefined) }),
        }),
      };
    }
    return {
      key: c.key,
      open: () => openPostgresDqSource({
        branch: c.key, connectionString: c.secrets.url ?? c.secrets.connection_string,
        host: p.host as string | undefined, port: num(p.port), database: (p.database ?? p.dbname) as string | undefined,
        user: p.user as string | undefined, password: c.secrets.password,
      }),
    };
  });
}

/** Everything `tributary dq` and the `dq.run` job do: resolve tables, branches and the lake, run, write, export. */
export async function executeDq(ctx: { pool: pg.Pool; env: Env; logger: Logger; signal?: AbortSignal }, o: ExecuteDqOptions = {}): Promise<DqRunSummary & { csvFile?: string }> {
  const lake = o.lake ?? openLake({ pool: ctx.pool, warehouse: ctx.env.warehouse, s3: ctx.env.s3, logger: ctx.logger });
  let all;
  try {
    all = o.selfTest && !o.tablesFile ? parseTablesConfig(SYNTHETIC_TABLES, 'self-test tables') : await loadTablesConfig(o.tablesFile ?? path.resolve('tables.json'));
  } catch (e) { throw new DqUsageError(`--tables-file: ${(e as Error).message}`); }
  let tables;
  try { tables = selectTables(all, o.tables ?? []); } catch (e) { throw new DqUsageError((e as Error).message); }
  let summary: DqRunSummary;
  if (o.selfTest) {
    const runId = o.runId ?? newDqRunId();
    const results = await runSelfTest({
      lake, tables, branches: o.branches ?? [], stagingRoot: path.join(ctx.env.dataDir, 'staging'), namespace: o.namespace ?? 'selftest', logger: ctx.logger, signal: ctx.signal,
    }, { runId, examples: o.examples });
    if (o.write !== false) await writeDqResults(ctx.pool, results);
    summary = { runId, results, ok: results.every((r) => r.status === 'OK' || r.status === 'SKIPPED') };
  } else {
    let branches = o.dqBranches ?? dqBranchesOf(await getBranches({ pool: ctx.pool, keys: { secret: ctx.env.TRIBUTARY_SECRET, dataDir: ctx.env.dataDir } }), o);
    if (o.branches?.length) {
      const known = branches;
      branches = o.branches.map((k) => {
        const b = known.find((x) => x.key === k);
        if (!b) throw new DqUsageError(`--branch: unknown branch ${k} (known: ${known.map((x) => x.key).join(', ') || 'none'})`);
        return b;
      });
    }
    if (!branches.length) throw new DqUsageError('--branch: no branches configured (add connections marked as branches: tributary connections …)');
    summary = await runDq({ pool: ctx.pool, lake, tables, branches, logger: ctx.logger, signal: ctx.signal, progress: o.progress }, o);
  }
  const csvFile = o.csvDir ? await writeResultsCsv(o.csvDir, summary.runId, summary.results) : undefined;
  return { ...summary, csvFile };
}
